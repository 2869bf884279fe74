import express, { Router, type Request, type Response } from 'express';
import * as client from 'openid-client';
import type { LoginResponse, SingleSignOnFailureCode } from '../../../contracts/index.js';
import { toIso } from '../../../storage/common/time.js';
import { sendProblem } from '../../http/problem.js';
import { sendJson } from '../../http/sendJson.js';
import { BASE_PATH, type MonitoringContext } from '../../MonitoringContext.js';
import { admit } from './admission.js';
import { DesktopHandoff, isS256Challenge, loopbackRedirect } from './desktopHandoff.js';
import { FlowCookie, type FlowState } from './flowCookie.js';
import { IssuerUnavailableError, OidcIssuer } from './OidcIssuer.js';
import type { SignInEvent } from './oidcOptions.js';

export const OIDC_PATH = `${BASE_PATH}/auth/oidc`;

/** Why a single sign-on failed: a fixed code (the dashboard words it; the desktop receives it) and its HTTP status. */
export const OIDC_FAILURES = {
  not_configured: 404,
  bad_request: 400,
  issuer_unavailable: 503,
  state_mismatch: 400,
  nonce_mismatch: 400,
  provider_refused: 401,
  invalid_response: 502,
  not_allowed: 403,
} as const satisfies Record<SingleSignOnFailureCode, number>;
type OidcFailureCode = SingleSignOnFailureCode;

class OidcFailure extends Error {
  constructor(
    readonly code: OidcFailureCode,
    detail: string,
  ) {
    super(detail);
  }
}

/** The claim whose comparison failed, when openid-client refused a response for a claim (`nonce`, `iss`, ...). */
function failedClaim(error: unknown): string | undefined {
  // openid-client may wrap the refusal of the library below it: look down the cause chain.
  for (let e = error as { cause?: unknown } | null, depth = 0; e && typeof e === 'object' && depth < 4; e = e.cause as typeof e, depth++) {
    const claim = (e.cause as { claim?: unknown } | undefined)?.claim;
    if (typeof claim === 'string') return claim;
  }
  return undefined;
}

/**
 * Single sign-on with OpenID Connect (authorization code with PKCE, openid-client):
 * GET /auth/oidc/login sends the browser to the provider (state, nonce and PKCE verifier in a
 * signed short-lived cookie); GET /auth/oidc/callback checks them, redeems the code, admits the
 * user by their claims and issues the same session JWT the password login issues, expiring no
 * later than the ID token. The dashboard receives it in the URL fragment of its magic page
 * (`/svc-monitoring/magic#session=<jwt>`); the desktop console on its loopback address as a
 * one-time code (desktopHandoff.ts). Failures answer a problem, or, for a browser, the login
 * page with `?sso_error=<code>`.
 */
export function oidcRouter(ctx: MonitoringContext): Router {
  const router = Router();
  const o = ctx.options;
  const sso = o.oidc;
  if (sso === null) {
    router.use((_req, res) => sendProblem(res, OIDC_FAILURES.not_configured, 'Single sign-on is not configured on this host (oidcIssuer).'));
    return router;
  }
  const issuer = new OidcIssuer(sso, o.now);
  const cookie = new FlowCookie(o.jwtSecret, o.jwtIssuer, OIDC_PATH, o.now);
  const handoff = new DesktopHandoff(o.jwtSecret, o.now);

  const secure = (req: Request) => req.secure || (o.publicUrl?.startsWith('https:') ?? false);
  /** The registered redirect URI: under publicUrl when set, else the address the request came to. */
  const redirectUri = (req: Request) => `${(o.publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/\/+$/, '')}${OIDC_PATH}/callback`;
  const report = (req: Request, event: Omit<SignInEvent, 'method' | 'atMs' | 'clientAddress' | 'userAgent'>) => {
    // Every single sign-on attempt is an operator-audit record, like a password or magic sign-in.
    void ctx.audit.record({
      actor: event.username ?? 'anonymous',
      method: 'oidc',
      ...(event.role ? { role: event.role } : {}),
      ...ctx.audit.requestFacts(req),
      action: 'signIn',
      result: event.outcome === 'succeeded' ? 'ok' : 'refused',
      ...(event.reason ? { message: event.reason } : {}),
    });
    if (!o.onSignIn) return;
    const address = ctx.clients.resolve(req);
    try {
      o.onSignIn({ method: 'oidc', atMs: o.now(), clientAddress: address.ok ? address.address : undefined, userAgent: req.get('user-agent'), ...event });
    } catch (error) {
      o.logger.warn(`svc-monitoring: onSignIn threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const fail = (req: Request, res: Response, failure: OidcFailure, desktop?: FlowState['desktop']) => {
    res.setHeader('Cache-Control', 'no-store');
    if (desktop) {
      const to = new URL(desktop.redirect);
      to.search = new URLSearchParams({ error: failure.code, error_description: failure.message, state: desktop.state }).toString();
      return res.redirect(303, to.href);
    }
    if (o.enableUI && req.accepts(['json', 'html']) === 'html') return res.redirect(303, `${BASE_PATH}/login?sso_error=${failure.code}`);
    sendProblem(res, OIDC_FAILURES[failure.code], failure.message);
  };
  const asFailure = (error: unknown): OidcFailure => {
    if (error instanceof OidcFailure) return error;
    if (error instanceof IssuerUnavailableError) return new OidcFailure('issuer_unavailable', `${error.message}. Sign in with a password, or try again later.`);
    if (failedClaim(error) === 'nonce') return new OidcFailure('nonce_mismatch', 'The ID token does not belong to this sign-in (nonce mismatch). Start again.');
    if (error instanceof client.AuthorizationResponseError) return new OidcFailure('provider_refused', `The identity provider refused the sign-in: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`);
    const message = error instanceof Error ? error.message : String(error);
    return new OidcFailure('invalid_response', `The identity provider's answer was refused: ${message}`);
  };

  router.get('/login', async (req, res) => {
    let desktop: FlowState['desktop'];
    try {
      const q = req.query;
      if (q.desktop_redirect !== undefined) {
        const redirect = typeof q.desktop_redirect === 'string' ? loopbackRedirect(q.desktop_redirect) : null;
        if (!redirect) throw new OidcFailure('bad_request', 'desktop_redirect must be a loopback address like http://127.0.0.1:<port>/<path>.');
        const state = q.desktop_state;
        const challenge = q.desktop_challenge;
        if (typeof state !== 'string' || state.length < 16 || typeof challenge !== 'string' || !isS256Challenge(challenge)) {
          throw new OidcFailure('bad_request', 'A desktop sign-in needs desktop_state (16+ characters) and desktop_challenge (an S256 PKCE challenge).');
        }
        desktop = { redirect: redirect.href, state, challenge };
      }
      const config = await issuer.configuration();
      const flow: FlowState = { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier(), ...(desktop ? { desktop } : {}) };
      const to = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(req),
        scope: sso.scopes,
        state: flow.state,
        nonce: flow.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(flow.codeVerifier),
        code_challenge_method: 'S256',
      });
      cookie.set(res, flow, secure(req));
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, to.href);
    } catch (error) {
      const failure = asFailure(error);
      if (failure.code === 'issuer_unavailable') o.logger.warn(`svc-monitoring: single sign-on: ${failure.message}`);
      // A malformed desktop request cannot be answered on its (unchecked) loopback address.
      fail(req, res, failure, failure.code === 'bad_request' ? undefined : desktop);
    }
  });

  router.get('/callback', async (req, res) => {
    const flow = cookie.read(req);
    cookie.clear(res, secure(req));
    try {
      if (flow === null) throw new OidcFailure('state_mismatch', 'This sign-in was not started in this browser, or took longer than 10 minutes. Start again.');
      if (req.query.state !== flow.state) throw new OidcFailure('state_mismatch', 'The sign-in answer does not belong to the sign-in this browser started (state mismatch). Start again.');
      const config = await issuer.configuration();
      const current = new URL(redirectUri(req));
      current.search = new URL(req.originalUrl, 'http://x').search;
      const tokens = await client.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new OidcFailure('invalid_response', 'The identity provider returned no ID token.');
      const admission = admit(claims, sso);
      if (!admission.ok) {
        report(req, { outcome: 'refused', reason: 'not_allowed', username: typeof claims.email === 'string' ? claims.email : claims.sub });
        throw new OidcFailure('not_allowed', admission.detail);
      }
      const issued = ctx.tokens.issue(admission.username, admission.role, 'oidc', claims.exp * 1000);
      report(req, { outcome: 'succeeded', username: admission.username, role: admission.role });
      res.setHeader('Cache-Control', 'no-store');
      const session = { token: issued.token, expiresAtMs: issued.expiresAtMs, username: admission.username, canManage: admission.role === 'operate' };
      if (flow.desktop) {
        const to = new URL(flow.desktop.redirect);
        to.search = new URLSearchParams({ code: handoff.seal(session, flow.desktop.challenge), state: flow.desktop.state }).toString();
        return res.redirect(303, to.href);
      }
      if (o.enableUI) return res.redirect(303, `${BASE_PATH}/magic#session=${encodeURIComponent(issued.token)}`);
      sendJson(res, 200, loginResponse(session));
    } catch (error) {
      const failure = asFailure(error);
      if (failure.code !== 'not_allowed') report(req, { outcome: 'refused', reason: failure.code });
      fail(req, res, failure, flow?.desktop);
    }
  });

  router.post('/desktop-token', express.json({ limit: '8kb' }), (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const body = req.body as { code?: unknown; codeVerifier?: unknown } | undefined;
    if (typeof body?.code !== 'string' || typeof body.codeVerifier !== 'string') {
      return sendProblem(res, 400, 'A JSON object {code, codeVerifier} is required.');
    }
    const session = handoff.redeem(body.code, body.codeVerifier);
    if (!session) return sendProblem(res, 401, 'The sign-in code is invalid, expired, or does not match the code verifier.');
    sendJson(res, 200, loginResponse(session));
  });

  router.use((req, res) => sendProblem(res, 404, `No single sign-on endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`));
  return router;
}

function loginResponse(s: { token: string; expiresAtMs: number; username: string; canManage: boolean }): LoginResponse {
  return { token: s.token, expiresAt: toIso(s.expiresAtMs), username: s.username, canManage: s.canManage };
}
