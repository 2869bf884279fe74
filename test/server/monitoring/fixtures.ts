import type { Database } from 'better-sqlite3';
import express from 'express';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createMonitoring, type Monitoring, type MonitoringSource } from '../../../server/src/monitoring/createMonitoring.js';
import type { MonitoringOptions } from '../../../server/src/monitoring/options.js';
import { openDatabase } from '../../../server/src/storage/sqlite/openDatabase.js';
import { lateBound } from '../../fixtures/lateBound.js';
import { writeTaskRow } from '../../fixtures/writeTaskRow.js';
import { openMonitoredStore, type MonitoredStore } from './monitoredStore.js';

export interface TempDb {
  dir: string;
  file: string;
  db: Database;
  cleanup(): void;
}

export function tempDb(): TempDb {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mon-'));
  const file = join(dir, 'tasks.db');
  const db = openDatabase({ file });
  return {
    dir,
    file,
    db,
    cleanup() {
      try {
        db.close();
      } catch {
        /* already closed */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TaskRowInput {
  id?: string;
  type?: string;
  handler?: string;
  request?: string;
  queue?: string;
  status?: string;
  task_key?: string | null;
  audit_level?: string;
  created_at?: number;
  scheduled_at?: number | null;
  started_at?: number | null;
  last_execution_at?: number | null;
  execution_time_ms?: number | null;
  run_count?: number;
  last_outcome?: string | null;
  exception?: string | null;
  throttled_until?: number | null;
  is_recurring?: number;
  occurrence_mode?: string | null;
  misfire_policy?: string | null;
  time_zone_id?: string | null;
  schedule_version?: number | null;
  halt?: string | null;
  parent_task_id?: string | null;
  nominal_slot_at?: number | null;
  run_number?: number | null;
  misfire_kind?: string | null;
  missed_from?: number | null;
  missed_through?: number | null;
  missed_count?: number | null;
  missed_count_is_exact?: number | null;
  /** Left out of the insert unless given (a database from before reservations has no such columns). */
  reserved_by?: string | null;
  reserved_at?: number | null;
}

/** Inserts a task row with plain SQL, through the task writer (which fills the read models). */
export function insertTask(db: Database, input: TaskRowInput = {}): string {
  const row = {
    id: randomUUID(),
    type: 'Demo.Billing.SendInvoice',
    handler: 'Demo.Billing.SendInvoiceHandler',
    request: '{"invoiceId":7}',
    queue: 'default',
    status: 'Queued',
    task_key: null,
    audit_level: 'Full',
    created_at: Date.now(),
    scheduled_at: null,
    started_at: null,
    last_execution_at: null,
    execution_time_ms: null,
    run_count: 0,
    last_outcome: null,
    exception: null,
    throttled_until: null,
    is_recurring: 0,
    occurrence_mode: null,
    misfire_policy: null,
    time_zone_id: null,
    schedule_version: null,
    halt: null,
    parent_task_id: null,
    nominal_slot_at: null,
    run_number: null,
    misfire_kind: null,
    missed_from: null,
    missed_through: null,
    missed_count: null,
    missed_count_is_exact: null,
    ...input,
  };
  if (input.handler === undefined) row.handler = `${row.type}Handler`;
  const cols = Object.keys(row);
  writeTaskRow(db, row.id, () => db.prepare(`INSERT INTO tasks (${cols.join(', ')}) VALUES (${cols.map((c) => '@' + c).join(', ')})`).run(row));
  return row.id;
}

export function insertAudit(db: Database, taskId: string, status: string, at: number, exception: string | null = null): number {
  return Number(
    db.prepare(`INSERT INTO status_audit (task_id, updated_at, new_status, exception) VALUES (?, ?, ?, ?)`).run(taskId, at, status, exception)
      .lastInsertRowid,
  );
}

export function insertRun(db: Database, taskId: string, at: number, ms: number, status: string, exception: string | null = null): void {
  db.prepare(`INSERT INTO runs_audit (task_id, executed_at, execution_time_ms, status, exception) VALUES (?, ?, ?, ?, ?)`).run(
    taskId,
    at,
    ms,
    status,
    exception,
  );
}

export function insertLog(db: Database, taskId: string, seq: number, level = 'Information', message = `log ${seq}`): void {
  db.prepare(
    `INSERT INTO execution_logs (task_id, timestamp, level, message, exception_details, sequence_number) VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(taskId, Date.now(), level, message, level === 'Error' ? 'Error: boom\n at x' : null, seq);
}

/** Finishes a run as the engine does: bumps run_count so the run buckets count it. */
export function finishRun(db: Database, id: string, outcome: 'Completed' | 'Failed', endMs: number, durationMs: number, exception?: string): void {
  writeTaskRow(db, id, () =>
    db.prepare(
      `UPDATE tasks SET status = ?, last_outcome = ?, last_execution_at = ?, execution_time_ms = ?, run_count = run_count + 1,
         started_at = COALESCE(started_at, ?), exception = ? WHERE id = ?`,
    ).run(outcome, outcome, endMs, durationMs, endMs - durationMs, exception ?? null, id),
  );
}

export interface Served {
  baseUrl: string;
  api: string;
  server: Server;
  monitoring: Monitoring;
  close(): Promise<void>;
}

/** A host app on an ephemeral loopback port with the monitoring mounted, plus a host route outside it. */
export async function serve(source: MonitoringSource, options: MonitoringOptions = {}): Promise<Served> {
  const monitoring = createMonitoring(source, { logger: { info: () => {}, warn: () => {} }, ...options });
  const app = express();
  app.get('/host/ping', (_req, res) => {
    res.json({ pong: true });
  });
  app.use(monitoring.router);
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  monitoring.attach(server);
  await monitoring.ready;
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    api: `${baseUrl}/svc-monitoring/api`,
    server,
    monitoring,
    async close() {
      await monitoring.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Monitoring options, or a function computing them once the store exists (to seed it or use its folder). */
export type ServeWith = MonitoringOptions | ((t: MonitoredStore) => MonitoringOptions);

/**
 * Runs `body` against one fresh store of the backend under test (see monitoredStore.ts) served once
 * per entry of `options` (in order), then closes every server and removes the store, whatever
 * `body` did. Rows an options function seeds reach the store before it is served.
 */
export async function withServers(options: ServeWith[], body: (servers: Served[], t: MonitoredStore) => Promise<void>): Promise<void> {
  const t = openMonitoredStore();
  const servers: Served[] = [];
  try {
    for (const o of options) {
      const resolved = typeof o === 'function' ? o(t) : o;
      await t.flush();
      servers.push(await serve(await t.source(), resolved));
    }
    await body(servers, t);
  } finally {
    for (const s of servers) await s.close();
    await t.destroy();
  }
}

/** `withServers` with one server. */
export function withServed(options: ServeWith, body: (s: Served, t: MonitoredStore) => Promise<void>): Promise<void> {
  return withServers([options], ([s], t) => body(s, t));
}

/**
 * For the describe block it is called in: a fresh store of the backend under test, seeded by
 * `seed`, served with `options` (standalone registration) before the block's tests; closed and
 * removed after them. The returned Served reads through to the live server.
 */
export function useServed(options: MonitoringOptions, seed: (db: Database) => void = () => undefined): Served {
  let t: MonitoredStore | undefined;
  let served: Served | undefined;
  beforeAll(async () => {
    t = openMonitoredStore();
    await t.seed(seed);
    served = await serve(await t.source(), options);
  });
  afterAll(async () => {
    await served?.close();
    await t?.destroy();
  });
  return lateBound(() => served, 'the served database');
}

export async function getJson(url: string, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function postJson(url: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function login(api: string, username = 'admin', password = 'admin'): Promise<string> {
  const r = await postJson(`${api}/auth/login`, { username, password });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return r.body.token as string;
}

/** Asserts recursively that no value in a JSON body is null (every JSON answer omits null fields). */
export function findNull(value: unknown, path = '$'): string | undefined {
  if (value === null) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = findNull(value[i], `${path}[${i}]`);
      if (p) return p;
    }
  } else if (typeof value === 'object' && value !== undefined) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const p = findNull(v, `${path}.${k}`);
      if (p) return p;
    }
  }
  return undefined;
}
