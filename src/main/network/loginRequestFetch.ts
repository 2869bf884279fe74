import type { ProxyAuthInfo, ProxyLoginAttempt } from './ProxyLogin.js';

type Fetch = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** The answer of a request as Electron's `IncomingMessage` gives it. */
export interface IncomingLike {
  statusCode: number;
  headers: Record<string, string | string[]>;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'error' | 'aborted', listener: (error?: Error) => void): this;
}

/** What `login` tells about who asks (Electron's AuthInfo). */
export interface LoginAuthInfo extends ProxyAuthInfo {
  isProxy: boolean;
}

/**
 * A request with the events of Electron's `ClientRequest` (`net.request`): unlike `net.fetch` it
 * raises `login` when a proxy (or the server) asks for credentials, once per challenge; a
 * second `login` on the same request means the credentials given were refused.
 */
export interface LoginRequest {
  setHeader(name: string, value: string): void;
  write(chunk: Buffer | string): void;
  end(): void;
  abort(): void;
  on(event: 'response', listener: (response: IncomingLike) => void): this;
  on(event: 'login', listener: (authInfo: LoginAuthInfo, callback: (username?: string, password?: string) => void) => void): this;
  on(event: 'redirect', listener: (statusCode: number, method: string, redirectUrl: string, responseHeaders: Record<string, string[]>) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
}

/** Opens a request (`net.request` with the environment's session, or Node's stand-in). */
export type OpenLoginRequest = (options: { method: string; url: string; redirect: 'manual' }) => LoginRequest;

/** Credentials for a proxy that asked (null: none, the request gets the 407). */
export type AnswerProxyLogin = (info: ProxyAuthInfo, attempt: ProxyLoginAttempt) => Promise<{ username: string; password: string } | null>;

/** Headers the network stack sets itself (Chromium refuses them from the caller). */
const STACK_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);
/** Statuses whose answer has no body (a Response refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

async function bodyOf(body: BodyInit | null | undefined): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** Method, headers and body of a fetch call, whether given as a Request (axios' fetch adapter) or as init. */
async function partsOf(input: string | Request, init: RequestInit | undefined): Promise<{ url: string; method: string; headers: Headers; body: Buffer | undefined }> {
  if (typeof input === 'string') return { url: input, method: init?.method ?? 'GET', headers: new Headers(init?.headers), body: await bodyOf(init?.body) };
  const body = init?.body !== undefined ? await bodyOf(init.body) : input.body ? Buffer.from(await input.arrayBuffer()) : undefined;
  return { url: input.url, method: init?.method ?? input.method, headers: new Headers(init?.headers ?? input.headers), body };
}

function responseOf(incoming: IncomingLike): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if (NO_BODY.has(incoming.statusCode)) return new Response(null, { status: incoming.statusCode, headers });
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on('data', (chunk) => controller.enqueue(new Uint8Array(chunk)));
      incoming.on('end', () => controller.close());
      incoming.on('error', (err) => controller.error(err ?? new Error('the answer was cut off')));
      incoming.on('aborted', () => controller.error(new Error('the answer was cut off')));
    },
  });
  return new Response(body, { status: incoming.statusCode, headers });
}

/**
 * A fetch over requests that raise `login` (electron/electron#44249: `net.fetch` never does, so
 * behind an authenticating proxy every request would fail without a prompt). A proxy's `login`
 * is answered by `answer` (the keychain, then a prompt) with `scope`, the session whose
 * credential cache the request uses; a second `login` on one request says the first answer was
 * refused. A server's own `login` is cancelled (environments log in through their API). A
 * redirect is not followed: it comes back as its 3xx answer (see refuseRedirects).
 */
export function loginRequestFetch(open: OpenLoginRequest, answer: AnswerProxyLogin, scope: string): Fetch {
  return async (input, init) => {
    const signal = init?.signal ?? (typeof input === 'string' ? undefined : input.signal);
    if (signal?.aborted) throw signal.reason ?? new DOMException('aborted', 'AbortError');
    const { url, method, headers, body } = await partsOf(input, init);
    return new Promise<Response>((resolve, reject) => {
      const request = open({ method, url, redirect: 'manual' });
      let settled = false;
      const settle = (action: () => void) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        action();
      };
      const onAbort = () => {
        request.abort();
        settle(() => reject(signal?.reason ?? new DOMException('aborted', 'AbortError')));
      };
      signal?.addEventListener('abort', onAbort);
      let logins = 0;
      request.on('login', (authInfo, callback) => {
        logins++;
        if (!authInfo.isProxy) return callback();
        answer({ host: authInfo.host, port: authInfo.port, scheme: authInfo.scheme, ...(authInfo.realm ? { realm: authInfo.realm } : {}) }, { scope, refused: logins > 1 }).then(
          (credentials) => (credentials ? callback(credentials.username, credentials.password) : callback()),
          () => callback(),
        );
      });
      request.on('redirect', (statusCode, _method, redirectUrl, responseHeaders) => {
        request.abort();
        const headers = new Headers();
        for (const [name, values] of Object.entries(responseHeaders)) for (const v of values) headers.append(name, v);
        headers.set('location', redirectUrl);
        settle(() => resolve(new Response(null, { status: statusCode, headers })));
      });
      request.on('response', (incoming) => settle(() => resolve(responseOf(incoming))));
      // Chromium's error as is (net::ERR_…): describeNetworkFailure names it for the user.
      request.on('error', (err) => settle(() => reject(err)));
      headers.forEach((value, name) => {
        if (!STACK_HEADERS.has(name)) request.setHeader(name, value);
      });
      if (body) request.write(body);
      request.end();
    });
  };
}
