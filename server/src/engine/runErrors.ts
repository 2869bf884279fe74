/** Reasons an engine aborts a running handler's `ctx.signal` with. */
export class TaskTimeoutError extends Error {
  override name = 'TaskTimeoutError';
}
export class TaskCancelledError extends Error {
  override name = 'TaskCancelledError';
}
export class ServiceStoppingError extends Error {
  override name = 'ServiceStoppingError';
}
