import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HubConnection } from '../HubConnection.js';
import type { TransportSink } from '../TransportSink.js';

/** SSE framing: each line of the payload as a `data:` line, a blank line ends the event. */
export function sseEvent(text: string): string {
  if (!text.includes('\n')) return `data: ${text}\n\n`;
  return `${text.split(/\r?\n/).map((line) => `data: ${line}`).join('\n')}\n\n`;
}

/** Opens the event stream (GET with `Accept: text/event-stream`); client messages come by POST. */
export function bindServerSentEvents(req: IncomingMessage, res: ServerResponse, connection: HubConnection): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  const sink: TransportSink = {
    kind: 'ServerSentEvents',
    write: (text) => {
      if (!res.writableEnded) res.write(sseEvent(text));
    },
    bufferedBytes: () => res.writableLength,
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
  connection.bind(sink);
  res.on('close', () => connection.transportClosed());
}
