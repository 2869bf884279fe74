import jwt from 'jsonwebtoken';
import { createSecretKey, randomUUID, type KeyObject } from 'node:crypto';
import { OPERATOR_AUTH_METHODS, type OperatorAuthMethod } from '../../contracts/index.js';

export type Role = 'read' | 'operate';

export interface Principal {
  username: string;
  role: Role;
  /** How the session was signed in (the token's `method` claim; absent on tokens issued before it existed). */
  method?: OperatorAuthMethod;
  /** ms since epoch; undefined with authentication off (tokens without expiry are refused). */
  expiresAtMs?: number;
}

export type VerifyResult = { ok: true; principal: Principal } | { ok: false; expired: boolean; reason: string };

/**
 * HS256 only (every other alg, `none` included, is rejected); iss, aud and exp checked, exp
 * required. The secret is held as a secret KeyObject: given a string, the JWT library first
 * tries to parse it as a PEM public key on every call, which costs milliseconds per request.
 */
export class TokenService {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly issuer: string,
    private readonly audience: string,
    private readonly lifetimeHours: number,
    private readonly now: () => number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /**
   * A session token. `method`: how the session was signed in (the token's `method` claim, recorded
   * in the operator audit); `notAfterMs` caps its expiry (a single sign-on session ends with the ID token's).
   */
  issue(username: string, role: Role, method: OperatorAuthMethod, notAfterMs?: number): { token: string; expiresAtMs: number } {
    const iat = Math.floor(this.now() / 1000);
    const lifetimeEnd = iat + Math.round(this.lifetimeHours * 3600);
    const exp = notAfterMs === undefined ? lifetimeEnd : Math.min(lifetimeEnd, Math.floor(notAfterMs / 1000));
    const token = jwt.sign({ sub: username, role, method, iat, exp, jti: randomUUID() }, this.key, {
      algorithm: 'HS256',
      issuer: this.issuer,
      audience: this.audience,
    });
    return { token, expiresAtMs: exp * 1000 };
  }

  verify(token: string): VerifyResult {
    try {
      const payload = jwt.verify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: this.audience,
        clockTimestamp: Math.floor(this.now() / 1000),
      });
      if (typeof payload !== 'object' || payload === null || typeof payload.sub !== 'string') {
        return { ok: false, expired: false, reason: 'The token has no subject.' };
      }
      // A token that never expires cannot be revoked short of rotating the secret.
      if (typeof payload.exp !== 'number') return { ok: false, expired: false, reason: 'The token has no expiry (exp).' };
      const role: Role = payload.role === 'operate' ? 'operate' : 'read';
      const method = OPERATOR_AUTH_METHODS.find((m) => m === payload.method);
      return {
        ok: true,
        principal: { username: payload.sub, role, ...(method !== undefined && { method }), expiresAtMs: payload.exp * 1000 },
      };
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) return { ok: false, expired: true, reason: 'The token expired.' };
      return { ok: false, expired: false, reason: 'The token is invalid.' };
    }
  }
}
