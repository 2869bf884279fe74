import type { ApiResult } from '../../../server/src/contracts/api.js';
import type { EnvironmentStatusView } from '../../shared/environmentStatus.js';
import type { EnvironmentsSummary, EnvironmentSummaryRow } from '../../shared/environmentsSummary.js';
import type { ProxiedOperation } from '../../shared/proxiedOperations.js';
import { withinTime } from '../lifecycle/withinTime.js';

/** How the summary reaches an environment's API: the console's proxy (token, 401 renewal, network rules). */
export type SummaryApiCall = <Op extends ProxiedOperation>(environmentId: string, operation: Op, params: Record<string, unknown>) => Promise<ApiResult<Op>>;

export interface AllEnvironmentsSummaryOptions {
  environments(): EnvironmentStatusView[];
  call: SummaryApiCall;
  /** An environment that has not answered within this long is `down` (default 5 s); the others do not wait for it. */
  timeoutMs?: number;
}

/** Failures read per environment: the counts stop there (`failedAtLeast`). */
export const FAILURE_PAGE = 200;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Every environment's health at a glance, gathered in main: three reads per environment (the
 * overview of today for halted schedules and the server's clock, the newest failures, the queues'
 * oldest waiting task), all environments in parallel, each within its own time limit. One
 * gathering at a time: a second ask while one runs gets the same answer.
 */
export class AllEnvironmentsSummary {
  private running: Promise<EnvironmentsSummary> | undefined;
  private last: EnvironmentsSummary | undefined;
  private readonly listeners = new Set<(summary: EnvironmentsSummary) => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: AllEnvironmentsSummaryOptions) {}

  /** The last summary gathered, if any. */
  latest(): EnvironmentsSummary | undefined {
    return this.last;
  }

  /** Every new summary (the tray's header line). */
  onSummary(listener: (summary: EnvironmentsSummary) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Gathers after `firstAfterMs` (the sessions have started by then: a gathering at start would
   * count every environment as needing a login), then every `ms`, so that the tray's line stays
   * current while the page is closed; `stop` ends it.
   */
  refreshEvery(ms: number, firstAfterMs = Math.min(ms, 30_000)): void {
    this.stop();
    const tick = () => void this.refresh().catch(() => undefined);
    this.timer = setTimeout(() => {
      tick();
      this.timer = setInterval(tick, ms);
      this.timer.unref?.();
    }, firstAfterMs);
    this.timer.unref?.();
  }

  stop(): void {
    // clearTimeout also clears an interval (one id space in Node).
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  refresh(): Promise<EnvironmentsSummary> {
    this.running ??= this.gather().finally(() => (this.running = undefined));
    return this.running;
  }

  private async gather(): Promise<EnvironmentsSummary> {
    const rows = await Promise.all(this.options.environments().map((env) => this.rowOf(env)));
    const summary = { at: new Date().toISOString(), rows };
    this.last = summary;
    for (const listener of this.listeners) listener(summary);
    return summary;
  }

  private async rowOf(env: EnvironmentStatusView): Promise<EnvironmentSummaryRow> {
    const base = { id: env.id, name: env.name, isProduction: env.isProduction, live: env.live };
    const started = Date.now();
    const took = () => Date.now() - started;
    if (env.session.auth === 'logged-out' || env.session.auth === 'relogin-required') {
      return { ...base, health: 'login', error: env.statusMessage ?? 'Log in to read this environment', tookMs: 0 };
    }
    // The session could not reach the host or read its configuration: down, for the reason it gave.
    if (env.session.auth === 'error') return { ...base, health: 'down', error: env.statusMessage ?? 'The environment cannot be used', tookMs: 0 };
    const timeoutMs = this.options.timeoutMs ?? 5_000;
    const answer = await withinTime(this.read(env.id), timeoutMs);
    if (!answer.done) return { ...base, health: 'down', error: `No answer within ${Math.round(timeoutMs / 100) / 10} s`, tookMs: took() };
    if (answer.value instanceof Error) {
      const login = (answer.value as { code?: unknown }).code === 'login-required';
      return { ...base, health: login ? 'login' : 'down', error: answer.value.message, tookMs: took() };
    }
    return { ...base, ...answer.value, tookMs: took() };
  }

  /** The figures of one environment, or the error that stopped them. */
  private async read(id: string): Promise<Omit<EnvironmentSummaryRow, 'id' | 'name' | 'isProduction' | 'live' | 'tookMs'> | Error> {
    try {
      const { call } = this.options;
      const [overview, failures, queues] = await Promise.all([
        call(id, 'dashboard.overview', { range: 'Today' }),
        call(id, 'tasks.list', { statuses: ['Failed'], sortBy: 'LastExecutionUtc', sortDescending: true, pageSize: FAILURE_PAGE }),
        call(id, 'queues.list', {}),
      ]);
      // The server's clock where it says it (the overview's window), else the desktop's.
      const now = overview.window ? Date.parse(overview.window.toUtc) : Date.now();
      const ages = failures.items.map((t) => now - Date.parse(t.lastExecutionUtc ?? t.createdAtUtc));
      const failedLastHour = ages.filter((a) => a <= HOUR_MS).length;
      const failedLastDay = ages.filter((a) => a <= DAY_MS).length;
      const waits = queues.map((q) => q.oldestQueuedAgeMs).filter((ms): ms is number => ms !== undefined);
      const haltedSchedules = overview.catchUpBacklog.haltedSchedules;
      return {
        health: failedLastHour > 0 || haltedSchedules > 0 ? 'failing' : 'ok',
        failedLastHour,
        failedLastDay,
        ...(failures.totalCount > failures.items.length && failedLastDay === failures.items.length ? { failedAtLeast: true } : {}),
        oldestWaitingMs: waits.length > 0 ? Math.max(...waits) : null,
        haltedSchedules,
      };
    } catch (err) {
      return err instanceof Error ? err : new Error(messageOf(err));
    }
  }
}
