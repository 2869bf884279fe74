import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server speaking just enough of the PostgreSQL protocol to refuse a password: it asks
 * for a cleartext password, then answers ErrorResponse 28P01 as a real server does when the
 * password is wrong (the local test server trusts every connection, so it cannot refuse one).
 */
export async function passwordRefusingServer(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((socket) => {
    let stage = 0;
    socket.on('data', (buf) => {
      if (stage === 0) {
        // SSLRequest (8 bytes, code 80877103) → 'N'; otherwise the StartupMessage.
        if (buf.length === 8 && buf.readInt32BE(4) === 80877103) {
          socket.write('N');
          return;
        }
        stage = 1;
        const auth = Buffer.alloc(9);
        auth.write('R', 0);
        auth.writeInt32BE(8, 1);
        auth.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(auth);
        return;
      }
      const fields = ['SFATAL', 'VFATAL', 'C28P01', 'Mpassword authentication failed for user "svc"'];
      const body = Buffer.concat([...fields.map((f) => Buffer.from(`${f}\0`)), Buffer.from([0])]);
      const head = Buffer.alloc(5);
      head.write('E', 0);
      head.writeInt32BE(body.length + 4, 1);
      socket.end(Buffer.concat([head, body]));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A loopback port with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
