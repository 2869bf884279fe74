import WebSocket from 'ws';

const RS = '\u001e';

/** A bare protocol client on `ws`: collects every record the server sends. */
export class RawClient {
  readonly records: unknown[] = [];
  closed = false;
  closeCode: number | undefined;
  private waiters: (() => void)[] = [];

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      for (const part of data.toString().split(RS)) if (part !== '') this.records.push(JSON.parse(part));
      this.wake();
    });
    ws.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
      this.wake();
    });
  }

  static open(url: string, token?: string): Promise<RawClient> {
    const ws = new WebSocket(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(text: string): void {
    this.ws.send(text);
  }

  async handshake(): Promise<void> {
    this.send(`{"protocol":"json","version":1}${RS}`);
    const first = await this.next();
    if (JSON.stringify(first) !== '{}') throw new Error(`handshake answered ${JSON.stringify(first)}`);
  }

  /** Waits for a record matching `predicate` (removing it and everything before it). */
  async next(predicate: (r: Record<string, unknown>) => boolean = () => true, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.records.length > 0) {
        const r = this.records.shift() as Record<string, unknown>;
        if (predicate(r)) return r;
      }
      if (this.closed) throw new Error('closed before the expected record');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a record');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  waitClosed(timeoutMs = 5_000): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      if (this.closed) return resolve(this.closeCode);
      const t = setTimeout(() => reject(new Error('socket not closed')), timeoutMs);
      this.ws.once('close', (code) => {
        clearTimeout(t);
        resolve(code);
      });
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** The status of a refused WebSocket upgrade. */
/** A refused WebSocket upgrade: its status, headers and body. */
export function upgradeRefusal(url: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        ws.terminate();
      });
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('upgrade accepted'));
    });
    ws.once('error', () => undefined);
  });
}

export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('upgrade accepted'));
    });
    ws.once('error', () => undefined);
  });
}
