// A bench that measures a server from outside runs its own file again in a child process
// (`--serve…` arguments): the child listens on a free loopback port and says which on its first
// `PORT <n>` line; the parent waits for that line. The child reads its own scheduler times
// (schedTimes) to tell its own work from waiting for a core.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Runs the bench file `selfUrl` (its import.meta.url) under tsx with `args`; resolves once the child names its port. */
export async function startServingChild(selfUrl: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(selfUrl), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      const m = /^PORT (\d+)/.exec(line);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`the serving child exited ${code}`)));
  });
  return { child, port };
}

/** The child's side: listens on a free loopback port and writes the `PORT <n>` line the parent waits for. */
export function listenForParent(app: { listen(port: number, host: string, callback: () => void): Server }): Server {
  const server = app.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.stdout.write(`PORT ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
  });
  return server;
}

/** The main thread's time on a CPU and waiting for one (ns), from Linux's schedstat; zeros elsewhere. */
export function schedTimes(): [number, number] {
  try {
    const [cpu, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return [Number(cpu), Number(wait)];
  } catch {
    return [0, 0];
  }
}
