import type { Request, Response } from 'express';
import jwt from 'jsonwebtoken';
import { createSecretKey, type KeyObject } from 'node:crypto';

/** What the login step hands to the callback step, through the user's browser. */
export interface FlowState {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The desktop console's loopback address and its own state and PKCE challenge (desktop sign-in only). */
  desktop?: { redirect: string; state: string; challenge: string };
}

export const FLOW_COOKIE = 'svc_oidc_flow';
/** A sign-in at the provider must finish within this time. */
const FLOW_LIFETIME_S = 10 * 60;
/** The audience that keeps a flow cookie from ever passing as a session token (and back). */
const FLOW_AUDIENCE = 'svc-monitoring:oidc-flow';

/**
 * The flow state lives in a short-lived, signed (HS256, the JWT secret), httpOnly cookie scoped
 * to the OIDC paths: no server-side session store, so any instance behind a load balancer can
 * finish a sign-in another one started. SameSite=Lax lets the provider's top-level redirect
 * back carry it.
 */
export class FlowCookie {
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly issuer: string,
    private readonly path: string,
    private readonly now: () => number,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  set(res: Response, flow: FlowState, secure: boolean): void {
    const iat = Math.floor(this.now() / 1000);
    const value = jwt.sign({ ...flow, iat, exp: iat + FLOW_LIFETIME_S }, this.key, { algorithm: 'HS256', issuer: this.issuer, audience: FLOW_AUDIENCE });
    res.cookie(FLOW_COOKIE, value, { httpOnly: true, secure, sameSite: 'lax', path: this.path, maxAge: FLOW_LIFETIME_S * 1000 });
  }

  clear(res: Response, secure: boolean): void {
    res.clearCookie(FLOW_COOKIE, { httpOnly: true, secure, sameSite: 'lax', path: this.path });
  }

  /** The flow this browser started, or null when the cookie is missing, forged or stale. */
  read(req: Request): FlowState | null {
    const raw = cookieValue(req.headers.cookie, FLOW_COOKIE);
    if (raw === undefined) return null;
    try {
      const payload = jwt.verify(raw, this.key, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: FLOW_AUDIENCE,
        clockTimestamp: Math.floor(this.now() / 1000),
      });
      if (typeof payload !== 'object' || payload === null) return null;
      const { state, nonce, codeVerifier, desktop } = payload as Partial<FlowState>;
      if (typeof state !== 'string' || typeof nonce !== 'string' || typeof codeVerifier !== 'string') return null;
      return { state, nonce, codeVerifier, ...(desktop ? { desktop } : {}) };
    } catch {
      return null;
    }
  }
}

/** One cookie's value from a Cookie header (the first of that name). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return undefined;
}
