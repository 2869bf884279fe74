import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The desktop console's sign-in (RFC 8252): it opens the system browser on
 * /auth/oidc/login?desktop_redirect=http://127.0.0.1:<port>/<path>&desktop_state=…&desktop_challenge=…,
 * the server runs the usual flow with the provider, then sends the browser to that loopback
 * address with a one-time `code` and the desktop's `state`. The code is the session sealed
 * (AES-256-GCM, a key derived from the JWT secret) and bound to the desktop's PKCE challenge:
 * it is useless in the browser's history or to another local process without the verifier the
 * desktop kept, and dies after a minute. The desktop redeems it at POST /auth/oidc/desktop-token.
 */

/** How long a handoff code may wait for its redemption. */
const CODE_LIFETIME_MS = 60_000;

export interface DesktopSession {
  token: string;
  expiresAtMs: number;
  username: string;
  canManage: boolean;
}

/** Only a loopback IP literal with an explicit port and plain http (RFC 8252 §7.3; `localhost` is refused, §8.3). */
export function loopbackRedirect(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || (url.hostname !== '127.0.0.1' && url.hostname !== '[::1]')) return null;
  if (url.port === '' || url.username !== '' || url.password !== '' || url.hash !== '') return null;
  return url;
}

/** A PKCE S256 challenge: 43 base64url characters. */
export function isS256Challenge(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class DesktopHandoff {
  private readonly key: Buffer;

  constructor(
    secret: string,
    private readonly now: () => number,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'svc-monitoring desktop handoff', 32));
  }

  seal(session: DesktopSession, challenge: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const plain = JSON.stringify({ ...session, challenge, until: this.now() + CODE_LIFETIME_MS });
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The session behind a code, when the code is genuine, unexpired and the verifier matches its challenge. */
  redeem(code: string, verifier: string): DesktopSession | null {
    try {
      const raw = Buffer.from(code, 'base64url');
      if (raw.length < 29) return null;
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const sealed = JSON.parse(plain) as DesktopSession & { challenge: string; until: number };
      if (sealed.until < this.now()) return null;
      const expected = Buffer.from(sealed.challenge);
      const actual = Buffer.from(s256(verifier));
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
      return { token: sealed.token, expiresAtMs: sealed.expiresAtMs, username: sealed.username, canManage: sealed.canManage };
    } catch {
      return null;
    }
  }
}
