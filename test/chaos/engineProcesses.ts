import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundledScript } from '../fixtures/bundledScript.js';
import type { ChildCommand, ChildSettings } from './protocol.js';

const CHILD = fileURLToPath(new URL('./engineChild.ts', import.meta.url));
const SHIFTED_CLOCK = fileURLToPath(new URL('../fixtures/shiftedClock.mjs', import.meta.url));

/** Distributes a command over Omit of a union member. */
type CommandBody = ChildCommand extends infer C ? (C extends ChildCommand ? Omit<C, 'id'> : never) : never;

/** One life of an engine process (test/chaos/engineChild.ts). */
export interface EngineLife {
  proc: string;
  child: ChildProcess;
  port: number;
  instanceId: string;
  clockOffsetMs: number;
  /** Resolves with the exit once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive: boolean;
  paused: boolean;
  /** The end of what it wrote to stderr (the reason when it crashed). */
  stderrTail(): string;
  /** Sends a command; rejects when the process ends before it answers or after timeoutMs. */
  send(command: CommandBody, timeoutMs?: number): Promise<unknown>;
}

let lastCommand = 0;

/** Starts one life and waits until it serves its API (rejects when it ends first or takes over 60 s). */
export function startLife(settings: ChildSettings, clockOffsetMs: number): Promise<EngineLife> {
  const env: NodeJS.ProcessEnv = { ...process.env, SVC_CHAOS: JSON.stringify(settings), SVC_TEST_CLOCK_OFFSET_MS: String(clockOffsetMs) };
  if (clockOffsetMs !== 0) env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${SHIFTED_CLOCK}`.trim();
  const child = spawn(process.execPath, [bundledScript(CHILD)], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env });
  let out = '';
  let err = '';
  // The stderr tail is kept for the report of a crash.
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (raw) => {
    const m = raw as { id: number; result?: unknown; error?: string };
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.result);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      life.alive = false;
      for (const p of pending.values()) p.reject(new Error(`${settings.proc} ended`));
      pending.clear();
      resolve({ code, signal });
    }),
  );
  const life: EngineLife = {
    proc: settings.proc, child, port: 0, instanceId: '', clockOffsetMs, exited, alive: true, paused: false,
    stderrTail: () => err,
    send(command, timeoutMs = 10_000) {
      const id = ++lastCommand;
      return new Promise((resolve, reject) => {
        if (!life.alive || !child.connected) return reject(new Error(`${settings.proc} is not running`));
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${settings.proc} did not answer ${command.op} within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => (clearTimeout(timer), resolve(v)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        child.send({ ...command, id }, (e) => e && pending.get(id)?.reject(e));
      });
    },
  };
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => reject(new Error(`${settings.proc} not ready within 60 s: ${err}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^ready (\d+) (\S+)$/m.exec(out);
      if (!m || life.port !== 0) return;
      clearTimeout(limit);
      life.port = Number(m[1]);
      life.instanceId = m[2]!;
      resolve(life);
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(limit);
      reject(new Error(`${settings.proc} exited (${code ?? signal}) before it was ready: ${err}`));
    });
  });
}
