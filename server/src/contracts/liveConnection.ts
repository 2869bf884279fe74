/**
 * The one vocabulary of a client's live connection to the hub, and the one place that reads
 * what a failed start or a close of the hub means. The desktop main process and the web
 * dashboard both report these states and both decide with `interpretHubFailure`.
 */

export const LIVE_STATES = ['idle', 'connecting', 'connected', 'reconnecting', 'unavailable', 'unauthorized', 'error'] as const;
/**
 * - `idle`: not started, stopped, or the session is not authenticated.
 * - `connecting`: the first attempt is under way.
 * - `connected`: events arrive.
 * - `reconnecting`: the connection was lost and the client is trying again.
 * - `unavailable`: the host has no hub (standalone registration); the dashboard polls.
 * - `unauthorized`: the hub refused the token and no new one could be had; log in again.
 * - `error`: the attempt failed; it is retried later.
 */
export type LiveState = (typeof LIVE_STATES)[number];

/** States in which no events arrive, so a dashboard refreshes by polling instead. */
export const POLLING_LIVE_STATES: readonly LiveState[] = ['reconnecting', 'unavailable', 'unauthorized', 'error'];

/** The reason the hub sends in its Close message when the connection's token expires. */
export const TOKEN_EXPIRED_CLOSE = 'Token expired';

/**
 * - `unavailable`: no hub at that address (404): do not retry, poll.
 * - `unauthorized`: the hub refused the token (401): renew it or ask for a login.
 * - `token-expired`: the hub closed because the token expired: renew it and reconnect.
 * - `transient`: anything else (network, 5xx, closed): retry later.
 */
export type HubFailureKind = 'unavailable' | 'unauthorized' | 'token-expired' | 'transient';

export interface HubFailure {
  kind: HubFailureKind;
  /** The HTTP status of a failed negotiate, when known. */
  status?: number;
  /** The client's error text (`Token expired` alone for an expiry). */
  message: string;
}

/** The HTTP status of a failed start: `statusCode` when the client sets it, else from the message. */
export function hubFailureStatus(error: unknown): number | undefined {
  const code = (error as { statusCode?: unknown } | null | undefined)?.statusCode;
  if (typeof code === 'number') return code;
  const text = error instanceof Error ? error.message : String(error);
  const m = /Status code '(\d{3})'/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** What a failed start, a reconnect cause or a close error of the SignalR client means. */
export function interpretHubFailure(error: unknown): HubFailure {
  const message = error instanceof Error ? error.message : error === undefined || error === null ? 'The live connection closed' : String(error);
  const status = hubFailureStatus(error);
  const withStatus = status !== undefined ? { status } : {};
  if (message.includes(TOKEN_EXPIRED_CLOSE)) return { kind: 'token-expired', ...withStatus, message: TOKEN_EXPIRED_CLOSE };
  if (status === 404) return { kind: 'unavailable', status, message };
  if (status === 401) return { kind: 'unauthorized', status, message };
  return { kind: 'transient', ...withStatus, message };
}
