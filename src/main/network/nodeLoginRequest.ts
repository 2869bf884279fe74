import { EventEmitter } from 'node:events';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { IncomingLike, LoginAuthInfo, LoginRequest, OpenLoginRequest } from './loginRequestFetch.js';

export interface NodeLoginRequestOptions {
  /** `http://host:port` of the proxy every request goes through; absent: direct. */
  proxy?: string;
  /** TLS of https targets (the environment's trust). */
  tls?: { ca?: string[]; rejectUnauthorized: boolean };
}

/** `Basic realm="Corp"` → its scheme (lower case, as Chromium names it) and realm. */
function challengeOf(header: string | string[] | undefined): { scheme: string; realm?: string } | undefined {
  const first = Array.isArray(header) ? header[0] : header;
  const match = first ? /^\s*(\S+)(?:.*?realm="([^"]*)")?/i.exec(first) : null;
  if (!match) return undefined;
  return { scheme: match[1]!.toLowerCase(), ...(match[2] !== undefined ? { realm: match[2] } : {}) };
}

/** An answer already read to its end, given again to whoever listens. */
function replayed(statusCode: number, headers: IncomingMessage['headers'], body: Buffer): IncomingLike {
  const emitter = new EventEmitter();
  const flat: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = value;
  setImmediate(() => {
    if (body.length > 0) emitter.emit('data', body);
    emitter.emit('end');
  });
  return Object.assign(emitter, { statusCode, headers: flat }) as unknown as IncomingLike;
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

/**
 * Node's network with the events of Electron's `net.request` (the console's services outside
 * Electron: tests, the e2e harness): through an HTTP proxy when one is given (absolute-URI
 * requests for http, a CONNECT tunnel for https), a 407 with a Basic challenge raises `login`
 * and the request is sent again with the credentials given (a cancel delivers the 407); a
 * redirect raises `redirect` and is not followed.
 */
export function nodeLoginRequest(options: NodeLoginRequestOptions = {}): OpenLoginRequest {
  // Like a Chromium session's auth cache: credentials the proxy took are sent with the next requests up front.
  const cache: ProxyAuthCache = { authorization: undefined };
  return ({ method, url }) => new NodeLoginRequest(method, new URL(url), options, cache);
}

interface ProxyAuthCache {
  authorization: string | undefined;
}

class NodeLoginRequest extends EventEmitter implements LoginRequest {
  private readonly headers: OutgoingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];
  private proxyAuthorization: string | undefined;
  private current: ClientRequest | undefined;
  private aborted = false;
  private readonly proxy: URL | undefined;

  constructor(
    private readonly method: string,
    private readonly url: URL,
    private readonly options: NodeLoginRequestOptions,
    private readonly cache: ProxyAuthCache,
  ) {
    super();
    this.proxy = options.proxy ? new URL(options.proxy) : undefined;
    this.proxyAuthorization = cache.authorization;
  }

  setHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }
  write(chunk: Buffer | string): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  }
  end(): void {
    this.send();
  }
  abort(): void {
    this.aborted = true;
    this.current?.destroy();
  }

  private send(): void {
    if (this.aborted) return;
    const body = Buffer.concat(this.chunks);
    const headers: OutgoingHttpHeaders = { ...this.headers, host: this.url.host, ...(body.length > 0 ? { 'content-length': body.length } : {}) };
    const https = this.url.protocol === 'https:';
    // Through the proxy every request has a connection of its own (a proxy may close it after the answer).
    const tls = { ...(this.options.tls?.ca ? { ca: this.options.tls.ca } : {}), rejectUnauthorized: this.options.tls?.rejectUnauthorized ?? true, servername: this.url.hostname };
    const port = this.url.port || (https ? '443' : '80');
    let req: ClientRequest;
    if (!this.proxy) {
      req = (https ? httpsRequest : httpRequest)(this.url, { method: this.method, headers, ...(https ? tls : {}) });
    } else if (!https) {
      req = httpRequest({ host: this.proxy.hostname, port: this.proxy.port, method: this.method, path: this.url.href, headers: { ...headers, ...this.proxyHeader() }, agent: false });
    } else {
      // https through the proxy: a CONNECT tunnel, then TLS to the host inside it.
      const connect = httpRequest({ host: this.proxy.hostname, port: this.proxy.port, method: 'CONNECT', path: `${this.url.hostname}:${port}`, headers: { host: `${this.url.hostname}:${port}`, ...this.proxyHeader() }, agent: false });
      this.current = connect;
      connect.on('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          void this.answered(res);
          return;
        }
        const inner = httpsRequest(this.url, { method: this.method, headers, createConnection: () => tlsConnect({ socket, ...tls }) });
        this.current = inner;
        this.wire(inner, body);
      });
      connect.on('error', (err) => this.emit('error', err));
      connect.end();
      return;
    }
    this.current = req;
    this.wire(req, body);
  }

  private proxyHeader(): OutgoingHttpHeaders {
    return this.proxyAuthorization ? { 'proxy-authorization': this.proxyAuthorization } : {};
  }

  private wire(req: ClientRequest, body: Buffer): void {
    req.on('response', (res) => void this.answered(res));
    req.on('error', (err) => {
      if (!this.aborted) this.emit('error', err);
    });
    req.end(body.length > 0 ? body : undefined);
  }

  private async answered(res: IncomingMessage): Promise<void> {
    const status = res.statusCode ?? 0;
    const challenge = status === 407 && this.proxy ? challengeOf(res.headers['proxy-authenticate']) : undefined;
    if (challenge) {
      // Refused: the cached credentials are no good any more.
      if (this.cache.authorization === this.proxyAuthorization) this.cache.authorization = undefined;
      const body = await readAll(res).catch(() => Buffer.alloc(0));
      const authInfo: LoginAuthInfo = { isProxy: true, scheme: challenge.scheme, host: this.proxy!.hostname, port: Number(this.proxy!.port || 80), ...(challenge.realm !== undefined ? { realm: challenge.realm } : {}) };
      this.emit('login', authInfo, (username?: string, password?: string) => {
        if (username === undefined || challenge.scheme !== 'basic') return this.emit('response', replayed(status, res.headers, body));
        this.proxyAuthorization = `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`;
        this.send();
      });
      return;
    }
    if (this.proxyAuthorization && status !== 407) this.cache.authorization = this.proxyAuthorization;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && status !== 304 && location) {
      res.resume();
      const headers: Record<string, string[]> = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value : [value];
      this.emit('redirect', status, this.method, new URL(location, this.url).href, headers);
      return;
    }
    this.emit('response', res as unknown as IncomingLike);
  }
}
