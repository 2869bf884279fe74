import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  json: Record<string, unknown>;
  atMs: number;
}

/**
 * A local HTTP receiver of webhooks: records every POST; `answer` decides each reply (a status,
 * or 'hang' to never answer).
 */
export async function webhookReceiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let calls = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const reply = answer(calls++);
      received.push({ headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown>, atMs: Date.now() });
      if (reply === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(reply).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
