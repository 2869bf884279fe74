import { AbortError, HttpClient, HttpError, HttpResponse, TimeoutError, type HttpRequest } from '@microsoft/signalr';
import axios, { isAxiosError, type AxiosInstance } from 'axios';
import type { HttpTransport } from './environmentNetwork.js';

/**
 * The hub client's HTTP (negotiate, long polling) over the environment's own transport, so it
 * reaches the host exactly as the API calls do (same trust, same network stack). Mirrors what
 * the library's fetch client does with status codes, timeouts and aborts.
 */
export class AxiosHubHttpClient extends HttpClient {
  private readonly http: AxiosInstance;

  constructor(transport: HttpTransport) {
    super();
    this.http = axios.create({ ...transport, validateStatus: () => true, maxRedirects: 5 });
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
      if (response.status < 200 || response.status > 299) {
        const text = typeof response.data === 'string' ? response.data : Buffer.from(response.data).toString('utf8');
        throw new HttpError(text || response.statusText, response.status);
      }
      const payload = binary ? toArrayBuffer(response.data) : String(response.data ?? '');
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
