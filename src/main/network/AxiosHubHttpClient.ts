import { AbortError, HttpClient, HttpError, HttpResponse, TimeoutError, type HttpRequest } from '@microsoft/signalr';
import axios, { isAxiosError, type AxiosInstance } from 'axios';
import type { HttpTransport } from './environmentNetwork.js';
import { redirectRefusal } from './refuseRedirects.js';

/**
 * The hub client's HTTP (negotiate, long polling) over the environment's own transport, so it
 * reaches the host exactly as the API calls do (same trust, same network stack). Mirrors what
 * the library's fetch client does with status codes, timeouts and aborts.
 */
export class AxiosHubHttpClient extends HttpClient {
  private readonly http: AxiosInstance;

  constructor(transport: HttpTransport) {
    super();
    // No redirect is followed: the requests carry the environment's bearer token.
    this.http = axios.create({ ...transport, validateStatus: () => true, maxRedirects: 0 });
  }

  override async send(request: HttpRequest): Promise<HttpResponse> {
    if (request.abortSignal?.aborted) throw new AbortError();
    if (!request.method) throw new Error('No method defined.');
    if (!request.url) throw new Error('No url defined.');
    const controller = new AbortController();
    let failure: Error | undefined;
    if (request.abortSignal) {
      request.abortSignal.onabort = () => {
        failure = new AbortError();
        controller.abort();
      };
    }
    const timer = request.timeout
      ? setTimeout(() => {
          failure = new TimeoutError();
          controller.abort();
        }, request.timeout)
      : undefined;
    const content = request.content === '' ? undefined : request.content;
    const binary = request.responseType === 'arraybuffer';
    try {
      const response = await this.http.request<string | ArrayBuffer>({
        url: request.url,
        method: request.method,
        data: content,
        headers: {
          'X-Requested-With': 'XMLHttpRequest',
          ...(content !== undefined ? { 'Content-Type': content instanceof ArrayBuffer ? 'application/octet-stream' : 'text/plain;charset=UTF-8' } : {}),
          ...request.headers,
        },
        responseType: binary ? 'arraybuffer' : 'text',
        // The hub's payloads are strings handed to its protocol; never JSON-parsed here.
        transformResponse: (data: unknown) => data,
        signal: controller.signal,
      });
      if (response.status >= 300 && response.status < 400) {
        throw new HttpError(redirectRefusal(response.headers['location'] as string | undefined, request.url), response.status);
      }
      if (response.status < 200 || response.status > 299) {
        const text = typeof response.data === 'string' ? response.data : Buffer.from(response.data).toString('utf8');
        throw new HttpError(text || response.statusText, response.status);
      }
      const payload = binary ? toArrayBuffer(response.data) : String(response.data ?? '');
      if (request.method === 'POST' && typeof payload === 'string') refuseForeignNegotiateUrl(request.url, payload);
      return new HttpResponse(response.status, response.statusText, payload);
    } catch (err) {
      if (failure) throw failure;
      if (isAxiosError(err) && axios.isCancel(err)) throw new AbortError();
      throw err;
    } finally {
      if (timer) clearTimeout(timer);
      if (request.abortSignal) request.abortSignal.onabort = null;
    }
  }
}

function toArrayBuffer(data: string | ArrayBuffer | Buffer): ArrayBuffer {
  if (data instanceof ArrayBuffer) return data;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/**
 * A negotiate answer may send the client to another server (`url`, as Azure SignalR does). The
 * client would carry the environment's bearer token there when the answer names no token of its
 * own, so an address at another origin than the negotiate request's is refused, as a foreign
 * `signalRHubPath` in /config is.
 */
function refuseForeignNegotiateUrl(requestUrl: string, payload: string): void {
  if (!new URL(requestUrl).pathname.endsWith('/negotiate')) return;
  let target: unknown;
  try {
    target = (JSON.parse(payload) as { url?: unknown }).url;
  } catch {
    return; // not JSON: the client reports the bad answer itself
  }
  if (typeof target !== 'string') return;
  const own = new URL(requestUrl).origin;
  let origin: string;
  try {
    origin = new URL(target, requestUrl).origin;
  } catch {
    origin = target;
  }
  if (origin !== own) {
    throw new Error(`The hub's negotiate answer sends the console to ${origin}, not to this environment's own address: the console does not connect there`);
  }
}
