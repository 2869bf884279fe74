import type { OperatorAuditEntry, SvcEvent } from '../../contracts/index.js';
import type { MonitoringStore } from '../../storage/MonitoringStore.js';
import type { MonitoringLogger } from '../options.js';
import { webhookBody, type AlertMessage } from './alertMessage.js';
import type { ResolvedAlertRule } from './alertRules.js';
import { WebhookSender, type DeliveryStats } from './WebhookSender.js';
import { SOLE_LEADERSHIP, type AlertLeadership } from '../../storage/openStorage.js';

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
 */
export function createAlerting(src: AlertingSources): Alerting {
  const sender = new WebhookSender(src.now, src.logger);
  const leadership = src.leadership ?? SOLE_LEADERSHIP;
  /** Whether this process evaluated the cluster's rules at the last look (one second). */
  let leading = src.leadership === undefined;
  const base = (src.publicUrl ?? '').replace(/\/+$/, '');
  const states = new Map<ResolvedAlertRule, RuleState>(src.rules.map((r) => [r, { firing: false, count: 0, taskIds: [] }]));
  let closed = false;

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
    if (!state.firing) {
      state.count = 0;
      state.taskIds = [];
      return;
    }
    if (state.count === 0) {
      state.firing = false;
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
      if (!state.firing && state.count >= rule.threshold) {
        state.firing = true;
        post(rule, 'firing', state.count, `${state.count} task(s) failed (${e.taskType}: ${e.message})`, state.taskIds);
        // The window restarts: what follows is reported at its end.
        clearTimeout(state.windowTimer);
        openWindow(rule, state);
      }
    }
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
  let checking = false;
  let warned = false;
  const check = async () => {
    if (checking || closed) return;
    checking = true;
    try {
      leading = await leadership.isLeader();
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
      sender.close();
      await leadership.close();
    },
  };
}
