import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

export interface RunningServer {
  port: number;
  base: string; // http://127.0.0.1:P/svc-monitoring
  api: string;
  dbFile: string;
  output: () => string;
  /** The magic token printed by `demo`, when it printed a magic link. */
  magicToken?: string;
  stop: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts `node --import tsx server/src/cli.ts <command> --port P --db <file> ...` on a free
 * loopback port and waits until GET /svc-monitoring/api/config answers.
 */
export async function startCli(command: 'demo' | 'serve', options: { args?: string[]; env?: Record<string, string>; dbFile?: string } = {}): Promise<RunningServer> {
  const port = await freePort();
  const dir = options.dbFile ? null : mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const dbFile = options.dbFile ?? join(dir as string, 'demo.db');
  let out = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/src/cli.ts', command, '--port', String(port), '--db', dbFile, ...(options.args ?? [])], {
    cwd: REPO,
    env: { ...process.env, ...options.env, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));

  const base = `http://127.0.0.1:${port}/svc-monitoring`;
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (exited) throw new Error(`${command} exited early:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${command} did not answer /config within 45 s:\n${out}`);
    }
    try {
      const r = await fetch(`${base}/api/config`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const magic = /#token=([^\s"'&]+)/.exec(out);
  return {
    port,
    base,
    api: `${base}/api`,
    dbFile,
    output: () => out,
    magicToken: magic?.[1] ? decodeURIComponent(magic[1]) : undefined,
    stop: async () => {
      if (!exited) {
        child.kill('SIGTERM');
        await new Promise<void>((resolve) => {
          const t = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 5_000);
          child.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function apiLogin(api: string, username = 'admin', password = 'admin'): Promise<string> {
  const r = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  if (!r.ok) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { token: string }).token;
}

/** `demo --demo-dispatch-endpoint`: POST /demo/dispatch on the demo host app; returns the new task id. */
export async function demoDispatch(port: number, type: 'fast' | 'slow' | 'flaky' | 'failing' | 'timeout' | 'logging'): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/demo/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type }) });
  if (!r.ok) throw new Error(`POST /demo/dispatch: ${r.status} ${await r.text()}`);
  const body = (await r.json()) as { id?: string; taskId?: string };
  const id = body.id ?? body.taskId;
  if (!id) throw new Error(`POST /demo/dispatch answered no id: ${JSON.stringify(body)}`);
  return id;
}

export async function apiGet<T>(api: string, path: string, token?: string): Promise<T> {
  const r = await fetch(`${api}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}
