/** A unit of work that may start once every job named in `after` has finished. */
export interface Job<C> {
  name: string;
  after?: readonly string[];
  run(client: C): Promise<unknown>;
}

/**
 * Runs the jobs on the clients, each client one job at a time; a free client takes the first job
 * in list order whose predecessors have finished (so the list order is the priority). Resolves
 * with each job's wall seconds; the first failure stops the clients from taking more jobs and is
 * thrown once the running ones have ended.
 */
export async function runJobs<C>(clients: readonly C[], jobs: readonly Job<C>[], log: (line: string) => void): Promise<Map<string, number>> {
  const names = new Set(jobs.map((j) => j.name));
  for (const j of jobs) {
    for (const a of j.after ?? []) if (!names.has(a)) throw new Error(`job ${j.name} waits for an unknown job ${a}`);
  }
  const pending = [...jobs];
  const done = new Set<string>();
  const seconds = new Map<string, number>();
  let failure: { error: unknown } | undefined;
  let wake: () => void = () => {};
  const changed = () => {
    const w = wake;
    wake = () => {};
    w();
  };
  const worker = async (client: C) => {
    while (pending.length > 0 && failure === undefined) {
      const i = pending.findIndex((j) => (j.after ?? []).every((a) => done.has(a)));
      if (i < 0) {
        await new Promise<void>((resolve) => {
          const before = wake;
          wake = () => {
            before();
            resolve();
          };
        });
        continue;
      }
      const job = pending.splice(i, 1)[0]!;
      const t0 = performance.now();
      try {
        await job.run(client);
        const s = Math.round((performance.now() - t0) / 100) / 10;
        seconds.set(job.name, s);
        done.add(job.name);
        log(`  ${job.name}: ${s} s`);
      } catch (error) {
        failure ??= { error };
      }
      changed();
    }
  };
  await Promise.all(clients.map(worker));
  if (failure) throw failure.error;
  return seconds;
}
