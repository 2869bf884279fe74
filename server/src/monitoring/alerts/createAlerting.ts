import type { OperatorAuditEntry, SvcEvent } from '../../contracts/index.js';
import type { AlertStateStore } from '../../storage/AlertStateStore.js';
import type { MonitoringStore } from '../../storage/MonitoringStore.js';
import type { MonitoringLogger } from '../options.js';
import { webhookBody, type AlertMessage } from './alertMessage.js';
import type { ResolvedAlertRule } from './alertRules.js';
import { WebhookSender, type DeliveryStats } from './WebhookSender.js';
import { SOLE_LEADERSHIP, type AlertLeadership } from '../../storage/AlertLeadership.js';

/** How often rules over the read models and the engine's health look again (a `for` shorter than this waits for the next look). */
const LEVEL_CHECK_MS = 1000;
/** Task ids a message names at most. */
const MAX_TASK_IDS = 10;

export interface AlertingSources {
  rules: readonly ResolvedAlertRule[];
  store: MonitoringStore;
  /** This process's engine (TaskFailed and EngineDegraded need one). */
  engine?: {
    on(event: 'event', listener: (e: SvcEvent) => void): unknown;
    off(event: 'event', listener: (e: SvcEvent) => void): unknown;
    health?(): { status: 'ok' | 'degraded' | 'failed' };
  };
  /**
   * Every instance's events on a shared store (the monitoring's relay on PostgreSQL); absent: the
   * engine's. TaskFailed rules count these, on the leader only.
   */
  events?: {
    on(event: 'event', listener: (e: SvcEvent) => void): unknown;
    off(event: 'event', listener: (e: SvcEvent) => void): unknown;
  };
  /** Who evaluates the cluster-wide rules (all but EngineDegraded, which is about this process's engine); absent: this process. */
  leadership?: AlertLeadership;
  /** Where the rules' states are kept across restarts and leaders (absent: in memory only). */
  states?: AlertStateStore;
  /** Origin for links into the dashboard (absent: links are paths). */
  publicUrl: string | null;
  logger: MonitoringLogger;
  now: () => number;
}

export interface Alerting {
  stats(): DeliveryStats;
  /** An operator audit record: posted by every OperatorAction rule. */
  operatorAction(entry: OperatorAuditEntry): void;
  close(): Promise<void>;
}

interface RuleState {
  firing: boolean;
  /** Level rules: since when the condition has disagreed with `firing` (undefined: it agrees). */
  changeSince?: number;
  /** When this rule last sent a message (level rules send one per window at most). */
  lastSentAt?: number;
  /** Matches in the current window, and their first task ids. */
  count: number;
  taskIds: string[];
  windowTimer?: NodeJS.Timeout;
}

/**
 * Evaluates the alert rules and posts their messages. A TaskFailed rule counts matching failures
 * per window: reaching the threshold fires at once; while firing, every window with new failures
 * sends one message with their count, and the first window without any sends "resolved". Rules
 * over the read models and the health fire once their condition has held for `for` ms and
 * resolve once it has been away as long; either message waits until `windowMs` has passed since
 * the rule's last one (a flapping state sends nothing new). Nothing here runs on the engine's path: events are counted, deliveries are async.
 *
 * With `states`, each change of a rule's state is written to the store, and the evaluator reads
 * them back before its first look (at start, and each time it becomes the leader): a rule firing
 * before a restart or a handover is not fired again, and is resolved when its condition clears.
 * EngineDegraded is about this process's engine: its state is kept only where this process is the
 * store's only evaluator (no leadership); a restarted engine's health starts afresh otherwise.
 */
export function createAlerting(src: AlertingSources): Alerting {
  const sender = new WebhookSender(src.now, src.logger);
  const leadership = src.leadership ?? SOLE_LEADERSHIP;
  /** Whether this process evaluated the cluster's rules at the last look (one second). */
  let leading = src.leadership === undefined;
  const base = (src.publicUrl ?? '').replace(/\/+$/, '');
  const states = new Map<ResolvedAlertRule, RuleState>(src.rules.map((r) => [r, { firing: false, count: 0, taskIds: [] }]));
  let closed = false;

  // ---- Kept states: written at each change, read before the first look as the evaluator
  const kept = (rule: ResolvedAlertRule) => src.states !== undefined && rule.on !== 'OperatorAction' && (rule.on !== 'EngineDegraded' || src.leadership === undefined);
  /** Whether this process holds the kept states (read since it last became the evaluator). */
  let restored = src.states === undefined;
  let writes = Promise.resolve();
  let writeWarned = false;
  const keep = (rule: ResolvedAlertRule, state: RuleState) => {
    if (!kept(rule)) return;
    const row = { rule: rule.name, key: '', firing: state.firing, changedAtMs: src.now(), lastSentAtMs: state.lastSentAt ?? null };
    writes = writes
      .then(() => src.states!.save(row))
      .then(
        () => void (writeWarned = false),
        (err: Error) => {
          if (!writeWarned) src.logger.warn(`svc-monitoring: an alert rule's state could not be written (a restart may send it again): ${err.message}`);
          writeWarned = true;
        },
      );
  };

  const post = (rule: ResolvedAlertRule, state: AlertMessage['state'], count: number, summary: string, taskIds: string[] = [], operatorAction?: OperatorAuditEntry) => {
    const message: AlertMessage = {
      rule: rule.name,
      on: rule.on,
      state,
      count,
      summary: `[${state}] ${rule.name}: ${summary}`,
      taskIds,
      links: { dashboard: `${base}/svc-monitoring`, tasks: taskIds.map((id) => `${base}/svc-monitoring/tasks/${id}`) },
      atUtc: new Date(src.now()).toISOString(),
      ...(operatorAction !== undefined && { operatorAction }),
    };
    sender.send(rule, webhookBody(message, rule.webhook.preset));
  };

  // ---- TaskFailed: events, windows
  const failureRules = src.rules.filter((r) => r.on === 'TaskFailed');
  const endWindow = (rule: ResolvedAlertRule, state: RuleState) => {
    state.windowTimer = undefined;
    if (closed) return;
    // A process that is no longer the evaluator leaves the rule to the one that is.
    if (!state.firing || !leading) {
      state.count = 0;
      state.taskIds = [];
      return;
    }
    if (state.count === 0) {
      state.firing = false;
      keep(rule, state);
      post(rule, 'resolved', 0, `no failed task in the last ${rule.windowMs} ms`);
      return;
    }
    post(rule, 'firing', state.count, `${state.count} more task(s) failed in the last ${rule.windowMs} ms`, state.taskIds);
    openWindow(rule, state);
  };
  const openWindow = (rule: ResolvedAlertRule, state: RuleState) => {
    state.count = 0;
    state.taskIds = [];
    state.windowTimer = setTimeout(() => endWindow(rule, state), rule.windowMs);
    state.windowTimer.unref?.();
  };
  const onEvent = (e: SvcEvent) => {
    if (e.kind !== 'Failed' || !leading) return;
    for (const rule of failureRules) {
      if (rule.types && !rule.types.has(e.taskType)) continue;
      if (rule.queues && !rule.queues.has(e.queueName ?? 'default')) continue;
      const state = states.get(rule)!;
      if (state.windowTimer === undefined) openWindow(rule, state);
      state.count++;
      if (state.taskIds.length < MAX_TASK_IDS) state.taskIds.push(e.taskId);
      fireFailures(rule, state, `${e.taskType}: ${e.message}`);
    }
  };
  /** Fires a TaskFailed rule whose window reached its threshold (once the kept states are read: the rule may be firing already). */
  const fireFailures = (rule: ResolvedAlertRule, state: RuleState, detail: string) => {
    if (state.firing || !restored || state.count < rule.threshold) return;
    state.firing = true;
    keep(rule, state);
    post(rule, 'firing', state.count, `${state.count} task(s) failed (${detail})`, state.taskIds);
    // The window restarts: what follows is reported at its end.
    clearTimeout(state.windowTimer);
    openWindow(rule, state);
  };
  const events = src.events ?? src.engine;
  if (failureRules.length > 0) events?.on('event', onEvent);

  // ---- OperatorAction: one message per audit record
  const operatorRules = src.rules.filter((r) => r.on === 'OperatorAction');
  const operatorAction = (entry: OperatorAuditEntry) => {
    if (closed) return;
    const target = entry.targetId === undefined ? '' : ` on ${entry.targetId}`;
    const status = entry.status === undefined ? '' : ` (${entry.status})`;
    for (const rule of operatorRules) {
      post(rule, 'recorded', 1, `${entry.actor} ${entry.action}${target}: ${entry.result}${status}`, entry.targetId === undefined ? [] : [entry.targetId], entry);
    }
  };

  // ---- Level rules: the read models and the health, looked at every second
  const levelRules = src.rules.filter((r) => r.on !== 'TaskFailed' && r.on !== 'OperatorAction');
  const condition = async (rule: ResolvedAlertRule): Promise<{ holds: boolean; count: number; summary: string }> => {
    if (rule.on === 'EngineDegraded') {
      const status = src.engine?.health?.().status ?? 'ok';
      return { holds: status !== 'ok', count: status === 'ok' ? 0 : 1, summary: `the engine reports ${status}` };
    }
    if (rule.on === 'ScheduleHalted') {
      const { halted } = await src.store.scheduleStates();
      return { holds: halted > 0, count: halted, summary: `${halted} durable schedule(s) halted over their catch-up cap` };
    }
    const queues = (await src.store.queueMetrics(src.now())).filter((q) => rule.queues === null || rule.queues.has(q.queueName));
    const over = queues.filter((q) => q.queuedTasks > rule.threshold);
    const most = Math.max(0, ...over.map((q) => q.queuedTasks));
    return { holds: over.length > 0, count: most, summary: `Queued tasks over ${rule.threshold} in ${over.map((q) => `${q.queueName} (${q.queuedTasks})`).join(', ') || 'no queue'}` };
  };
  /** Takes the kept states of the rules this process now evaluates (the store's word over its memory). */
  const restore = async () => {
    const rows = new Map((await src.states!.list()).filter((r) => r.key === '').map((r) => [r.rule, r]));
    if (closed) return;
    for (const [rule, state] of states) {
      if (!kept(rule)) continue;
      const row = rows.get(rule.name);
      state.firing = row?.firing ?? false;
      state.lastSentAt = row?.lastSentAtMs ?? undefined;
      state.changeSince = undefined;
      // A firing TaskFailed rule resolves at the end of a window without failures.
      if (rule.on === 'TaskFailed' && state.firing && state.windowTimer === undefined) openWindow(rule, state);
    }
    restored = true;
    for (const rule of failureRules) fireFailures(rule, states.get(rule)!, 'failures counted while the rules\' states were read');
  };
  let checking = false;
  let warned = false;
  const check = async () => {
    if (checking || closed) return;
    checking = true;
    try {
      const leader = await leadership.isLeader();
      if (!leader) restored = src.states === undefined;
      else if (!restored) await restore();
      leading = leader;
      for (const rule of levelRules) {
        if (rule.on !== 'EngineDegraded' && !leading) continue;
        const state = states.get(rule)!;
        const c = await condition(rule);
        if (closed) return;
        const now = src.now();
        if (c.holds === state.firing) {
          state.changeSince = undefined;
          continue;
        }
        // The change counts once it has held for `for` and the rule's window since its last message is over.
        state.changeSince ??= now;
        if (now - state.changeSince < rule.forMs) continue;
        if (state.lastSentAt !== undefined && now - state.lastSentAt < rule.windowMs) continue;
        state.firing = c.holds;
        state.changeSince = undefined;
        state.lastSentAt = now;
        keep(rule, state);
        if (c.holds) post(rule, 'firing', c.count, c.summary);
        else post(rule, 'resolved', c.count, `cleared (${c.summary})`);
      }
      warned = false;
    } catch (err) {
      if (!warned) src.logger.warn(`svc-monitoring: alert rules could not read the store: ${(err as Error).message}`);
      warned = true;
    } finally {
      checking = false;
    }
  };
  const poller = src.rules.length > 0 ? setInterval(() => void check(), LEVEL_CHECK_MS) : undefined;
  poller?.unref?.();
  if (src.rules.length > 0) void check();

  return {
    stats: () => ({ ...sender.stats }),
    operatorAction,
    async close() {
      closed = true;
      if (poller) clearInterval(poller);
      for (const s of states.values()) clearTimeout(s.windowTimer);
      if (failureRules.length > 0) events?.off('event', onEvent);
      // The last states reach the store before the leadership is handed over.
      await writes;
      sender.close();
      await leadership.close();
    },
  };
}
