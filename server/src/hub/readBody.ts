import type { IncomingMessage } from 'node:http';

export type BodyResult = { ok: true; text: string } | { ok: false; tooLarge: true };

/**
 * The raw text of a POST (client messages), up to `limitBytes`. A body a host middleware
 * already parsed as text is taken as is.
 */
export function readBody(req: IncomingMessage & { body?: unknown }, limitBytes: number): Promise<BodyResult> {
  if (typeof req.body === 'string') {
    return Promise.resolve(Buffer.byteLength(req.body) > limitBytes ? { ok: false, tooLarge: true } : { ok: true, text: req.body });
  }
  if (req.readableEnded) return Promise.resolve({ ok: true, text: '' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limitBytes) {
        done = true;
        req.resume();
        resolve({ ok: false, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (done) return;
      done = true;
      resolve({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    });
    req.on('error', (err) => {
      if (done) return;
      done = true;
      reject(err);
    });
  });
}
