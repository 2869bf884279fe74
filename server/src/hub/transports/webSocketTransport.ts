import type { WebSocket } from 'ws';
import type { HubConnection } from '../HubConnection.js';
import type { TransportSink } from '../TransportSink.js';

/** Wait this long for the client's close frame before dropping the socket. */
const CLOSE_GRACE_MS = 2_000;

/** Binds an accepted WebSocket to a connection: text frames in, frames out, close both ways. */
export function bindWebSocket(ws: WebSocket, connection: HubConnection): void {
  const sink: TransportSink = {
    kind: 'WebSockets',
    write: (text, utf8) => {
      if (ws.readyState === ws.OPEN) ws.send(utf8 ?? text, { binary: false });
    },
    bufferedBytes: () => ws.bufferedAmount,
    end: () => {
      if (ws.readyState === ws.OPEN) ws.close(1000);
      const timer = setTimeout(() => ws.terminate(), CLOSE_GRACE_MS);
      timer.unref();
      ws.once('close', () => clearTimeout(timer));
    },
  };
  connection.bind(sink);
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      connection.close('Binary messages are not supported by the JSON hub protocol.');
      return;
    }
    connection.receive(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'));
  });
  ws.on('close', () => connection.transportClosed());
  ws.on('error', () => connection.transportClosed());
}
