/**
 * Engine benchmark (issue 3): 20,000 no-op tasks, 4 workers, audit Full, file database.
 * Measures dispatch rate and end-to-end rate (first dispatch → all Completed), and in the same
 * run the floor: bare better-sqlite3 doing the same lifecycle by hand (insert + audit, update +
 * audit, update + audit, one transaction each, prepared statements) on a fresh database with the
 * same schema (migrations incl. triggers) and pragmas. Last line: one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createEngine, openDatabase, openSqliteStorage } from '../server/src/index.js';

const TASKS = Number(process.env['BENCH_TASKS'] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-engine-'));

async function engineRun(): Promise<{ dispatchPerSec: number; endToEndPerSec: number }> {
  const storage = openSqliteStorage({ file: join(dir, 'engine.db') });
  const engine = createEngine({ storage, queues: { default: { concurrency: 4 } }, auditLevel: 'Full', pollIntervalMs: 50 });
  let completed = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  engine.handle('Bench.NoOp', () => undefined);
  engine.on('event', (e) => {
    if (e.kind === 'Completed' && ++completed === TASKS) resolveAll();
  });
  await engine.start();
  const t0 = performance.now();
  const ids: Promise<string>[] = [];
  for (let i = 0; i < TASKS; i++) ids.push(engine.dispatch('Bench.NoOp', { i }));
  await Promise.all(ids);
  const tDispatched = performance.now();
  await all;
  const tDone = performance.now();
  await engine.stop();
  const db = storage.db;
  const done = db.prepare(`SELECT COUNT(*) FROM tasks WHERE status = 'Completed'`).pluck().get() as number;
  const audits = db.prepare('SELECT COUNT(*) FROM status_audit').pluck().get() as number;
  storage.close();
  if (done !== TASKS || audits !== TASKS * 3) throw new Error(`engine run incomplete: ${done} completed, ${audits} audits`);
  return { dispatchPerSec: TASKS / ((tDispatched - t0) / 1000), endToEndPerSec: TASKS / ((tDone - t0) / 1000) };
}

function bareRun(): number {
  const db = openDatabase({ file: join(dir, 'bare.db') });
  const insert = db.prepare(`INSERT INTO tasks (id, type, handler, request, queue, status, audit_level, created_at)
    VALUES (?, 'Bench.NoOp', 'Bench.NoOpHandler', ?, 'default', 'Queued', 'Full', ?)`);
  const audit = db.prepare('INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, NULL)');
  const start = db.prepare(`UPDATE tasks SET status = 'InProgress', started_at = ? WHERE id = ?`);
  const complete = db.prepare(`UPDATE tasks SET status = 'Completed', last_execution_at = ?, execution_time_ms = ?,
    last_outcome = 'Completed', run_count = run_count + 1 WHERE id = ?`);
  const tInsert = db.transaction((id: string, i: number) => {
    const now = Date.now();
    insert.run(id, JSON.stringify({ i }), now);
    audit.run(id, now, 'Queued');
  });
  const tStart = db.transaction((id: string) => {
    const now = Date.now();
    start.run(now, id);
    audit.run(id, now, 'InProgress');
  });
  const tComplete = db.transaction((id: string) => {
    const now = Date.now();
    complete.run(now, 0.01, id);
    audit.run(id, now, 'Completed');
  });
  const ids = Array.from({ length: TASKS }, () => randomUUID());
  const t0 = performance.now();
  for (let i = 0; i < TASKS; i++) tInsert.immediate(ids[i]!, i);
  for (let i = 0; i < TASKS; i++) {
    tStart.immediate(ids[i]!);
    tComplete.immediate(ids[i]!);
  }
  const t1 = performance.now();
  db.close();
  return TASKS / ((t1 - t0) / 1000);
}

try {
  const bareLifecyclePerSec = bareRun();
  const { dispatchPerSec, endToEndPerSec } = await engineRun();
  const round = (n: number) => Math.round(n);
  console.log(`tasks                 ${TASKS} (no-op, 4 workers, audit Full, file database)`);
  console.log(`dispatch              ${round(dispatchPerSec)} tasks/s`);
  console.log(`end-to-end            ${round(endToEndPerSec)} tasks/s (first dispatch → all Completed)`);
  console.log(`bare lifecycle floor  ${round(bareLifecyclePerSec)} tasks/s (3 transactions per task by hand)`);
  console.log(`ratio                 ${(endToEndPerSec / bareLifecyclePerSec).toFixed(2)}`);
  console.log(
    JSON.stringify({
      bench: 'engine',
      tasks: TASKS,
      dispatchPerSec: round(dispatchPerSec),
      endToEndPerSec: round(endToEndPerSec),
      bareLifecyclePerSec: round(bareLifecyclePerSec),
      ratio: Math.round((endToEndPerSec / bareLifecyclePerSec) * 100) / 100,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
