/** NOTIFY channel names of a schema: events of every engine instance, and wake-ups (new or due work). */
export const eventsChannel = (schema: string) => `${schema}_events`;
export const wakeChannel = (schema: string) => `${schema}_wake`;

/** NOTIFY payloads must stay under 8000 bytes; larger events travel by id through event_payloads. */
export const MAX_INLINE_PAYLOAD_BYTES = 7800;
/** How long a large payload is kept for listeners to fetch. */
export const PAYLOAD_RETENTION_MS = 5 * 60_000;
