import { createHmac, randomUUID } from 'node:crypto';

/** The prefix of a Standard Webhooks secret: `whsec_` then the key in base64. */
const WHSEC = 'whsec_';
/** Key lengths Standard Webhooks allows (bytes). */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The HMAC key of a webhook secret: a `whsec_<base64>` secret is its decoded bytes (what every
 * Standard Webhooks verifier does with it); any other text is its UTF-8 bytes (a receiver verifies
 * it as a raw key). Throws a sentence for a `whsec_` secret that is not base64 of 24..64 bytes.
 */
export function signingKey(secret: string): Buffer {
  if (!secret.startsWith(WHSEC)) return Buffer.from(secret, 'utf8');
  const text = secret.slice(WHSEC.length);
  const key = BASE64.test(text) ? Buffer.from(text, 'base64') : Buffer.alloc(0);
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new Error(`a "${WHSEC}" secret must be followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes`);
  }
  return key;
}

/** A new message id: the same on every attempt of one message (receivers drop repeats by it). */
export function messageId(): string {
  return `msg_${randomUUID()}`;
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id`, `webhook-timestamp` (seconds) and,
 * with keys, `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per key,
 * space-separated (several keys while a secret is rotated; a receiver accepts any one).
 */
export function standardWebhookHeaders(keys: readonly Buffer[], id: string, atMs: number, body: string): Record<string, string> {
  const timestamp = String(Math.floor(atMs / 1000));
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': timestamp };
  if (keys.length > 0) {
    const signed = `${id}.${timestamp}.${body}`;
    headers['webhook-signature'] = keys.map((key) => `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`).join(' ');
  }
  return headers;
}

/** The older `X-Svc-Signature: sha256=<hex HMAC-SHA256 of the body>`, kept for receivers written against it. */
export function legacySignature(key: Buffer, body: string): string {
  return `sha256=${createHmac('sha256', key).update(body, 'utf8').digest('hex')}`;
}

/**
 * A `Retry-After` value in ms from `now`: delta-seconds or an HTTP date; undefined when absent or
 * unreadable.
 */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
