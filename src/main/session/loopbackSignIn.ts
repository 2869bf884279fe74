import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LoginResponse } from '../../../server/src/contracts/index.js';

/** Where the server's single sign-on lives, under the environment's base address. */
const OIDC_PATH = '/svc-monitoring/auth/oidc';
/** How long the console waits for the person to finish at the provider. */
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export interface LoopbackSignInOptions {
  /** The environment's base address (`https://ops.example.com`). */
  baseUrl: string;
  /** Opens a URL in the system browser (Electron: shell.openExternal). */
  openExternal(url: string): Promise<void>;
  /** Redeems the one-time code at the server (default: fetch; the console passes its trusted client). */
  postJson?(url: string, body: unknown): Promise<{ status: number; body: unknown }>;
  timeoutMs?: number;
}

export class LoopbackSignInError extends Error {
  constructor(
    message: string,
    /** The server's failure code (`not_allowed`, `issuer_unavailable`, ...) or the console's own. */
    readonly code: string,
  ) {
    super(message);
    this.name = 'LoopbackSignInError';
  }
}

const PAGE = (text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Svc Monitor</title></head><body style="font-family:system-ui,sans-serif;margin:3rem"><p>${text}</p></body></html>`;

async function defaultPostJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: kept as text */
  }
  return { status: res.status, body: parsed };
}

/**
 * Single sign-on as a native app (RFC 8252): a one-shot listener on 127.0.0.1 with an ephemeral
 * port, the system browser opened on the server's login with that loopback address, a random
 * state and a PKCE S256 challenge; the browser comes back with the state and a one-time code,
 * redeemed with the verifier for the same session the password login gives. Anything else at
 * the loopback address (another path, a wrong state) is refused and the wait goes on.
 */
export async function signInWithSystemBrowser(options: LoopbackSignInOptions): Promise<LoginResponse> {
  const state = randomBytes(32).toString('base64url');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  const postJson = options.postJson ?? defaultPostJson;
  const base = options.baseUrl.replace(/\/+$/, '');

  let settle!: { resolve(r: LoginResponse): void; reject(e: Error): void };
  const outcome = new Promise<LoginResponse>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const answer = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(PAGE(text));
    };
    if (req.method !== 'GET' || url.pathname !== '/callback' || url.searchParams.get('state') !== state) {
      return answer(400, 'This is not the sign-in Svc Monitor is waiting for.');
    }
    const error = url.searchParams.get('error');
    if (error !== null) {
      answer(200, 'Sign-in failed: return to Svc Monitor.');
      return settle.reject(new LoopbackSignInError(url.searchParams.get('error_description') ?? `Single sign-on failed (${error}).`, error));
    }
    const code = url.searchParams.get('code');
    if (code === null) return answer(400, 'The sign-in answer carries no code.');
    answer(200, 'Signed in: you can close this window and return to Svc Monitor.');
    postJson(`${base}${OIDC_PATH}/desktop-token`, { code, codeVerifier: verifier }).then(
      (r) => {
        if (r.status === 200) settle.resolve(r.body as LoginResponse);
        else settle.reject(new LoopbackSignInError(`The server refused the sign-in code (${r.status}).`, 'code_refused'));
      },
      (e: unknown) => settle.reject(e instanceof Error ? e : new Error(String(e))),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const timer = setTimeout(
    () => settle.reject(new LoopbackSignInError('The sign-in in the browser was not finished in time.', 'timeout')),
    options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  );
  try {
    const login = new URL(`${base}${OIDC_PATH}/login`);
    login.search = new URLSearchParams({ desktop_redirect: `http://127.0.0.1:${port}/callback`, desktop_state: state, desktop_challenge: challenge }).toString();
    await options.openExternal(login.href);
    return await outcome;
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
