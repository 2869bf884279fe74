// CPU time of a PostgreSQL database's server processes (its backends), read from /proc: the
// server's share of a measurement, beside the bench process's own (process.cpuUsage). Linux with
// the server on this machine only; elsewhere it reads null.
import { existsSync, readFileSync } from 'node:fs';
import type { PostgresStorage } from '../server/src/storage/postgres/PostgresStorage.js';

/** Linux counts process CPU in ticks of 1/100 s (USER_HZ). */
const TICK_MS = 10;

/** utime + stime of a process, or null once it has exited. */
const ticksOf = (pid: number): number | null => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
};

/**
 * Starts counting the CPU of the backends connected to `storage`'s database; the returned function
 * reads the ms spent since (null off Linux). A backend that exits in between is not counted (the
 * pool closes idle connections): measure a span that keeps its connections busy.
 */
export async function backendCpu(storage: PostgresStorage): Promise<() => Promise<number | null>> {
  if (!existsSync('/proc/self/stat')) return async () => null;
  const pids = async () =>
    (await storage.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((r) => r.pid);
  const before = new Map((await pids()).map((p) => [p, ticksOf(p) ?? 0]));
  return async () => {
    let ticks = 0;
    for (const p of new Set([...before.keys(), ...(await pids())])) {
      const now = ticksOf(p);
      if (now !== null) ticks += now - (before.get(p) ?? 0);
    }
    return ticks * TICK_MS;
  };
}
