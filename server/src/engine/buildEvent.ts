import { SEVERITY_BY_KIND, type ExecutionLogEntry, type SvcEvent, type SvcEventKind } from '../contracts/index.js';

export interface EventSubject {
  id: string;
  type: string;
  handler: string;
  request: string;
  queue: string;
  parent_task_id: string | null;
}

export interface EventExtras {
  exception?: string | null;
  executionLogs?: ExecutionLogEntry[];
  executionTimeMs?: number;
  attempt?: number;
  waitTimeMs?: number;
  abandoned?: boolean;
}

/** The last instant formatted and its text: the events of one commit mostly share their millisecond. */
let lastAt = Number.NaN;
let lastText = '';
function isoText(at: number): string {
  if (at !== lastAt) {
    lastText = new Date(at).toISOString();
    lastAt = at;
  }
  return lastText;
}

/** An engine event, the one argument of the hub's `SvcEvent` invocation, with null fields omitted. */
export function buildEvent(kind: SvcEventKind, at: number, task: EventSubject, message: string, extras: EventExtras = {}): SvcEvent {
  const e: SvcEvent = {
    kind,
    taskId: task.id,
    eventDateUtc: isoText(at),
    severity: SEVERITY_BY_KIND[kind],
    taskType: task.type,
    taskHandlerType: task.handler,
    taskParameters: task.request,
    message,
    queueName: task.queue,
  };
  if (task.parent_task_id !== null) e.parentTaskId = task.parent_task_id;
  if (extras.exception !== undefined && extras.exception !== null) e.exception = extras.exception;
  if (extras.executionLogs !== undefined) e.executionLogs = extras.executionLogs.map((l) => ({ ...l }));
  if (extras.executionTimeMs !== undefined) e.executionTimeMs = extras.executionTimeMs;
  if (extras.attempt !== undefined) e.attempt = extras.attempt;
  if (extras.waitTimeMs !== undefined) e.waitTimeMs = extras.waitTimeMs;
  if (extras.abandoned === true) e.abandoned = true;
  return e;
}
