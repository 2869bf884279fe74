import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { TaskDetail, TaskPage } from '../../../server/src/contracts/task.js';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const EXAMPLE = join(REPO, 'examples', 'host.ts');

describe('the README host example (examples/host.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-example-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is quoted verbatim in README.md', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    expect(readme).toContain(readFileSync(EXAMPLE, 'utf8').trimEnd());
  });

  it('runs against the built package: the dispatched task completes with its log, the schedule row exists, SIGTERM stops', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
      cwd: REPO,
      env: { ...process.env, PORT: '0', DB_FILE: join(dir, 'tasks.db'), JWT_SECRET: 'x'.repeat(48) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const base = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`example did not start:\n${out}`)), 30_000);
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /dashboard on (http:\/\/127\.0\.0\.1:\d+)\/svc-monitoring/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        void exited.then((code) => reject(new Error(`example exited ${code}:\n${out}`)));
      });
      const api = `${base}/svc-monitoring/api`;
      const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      const get = async <T>(path: string): Promise<T> => {
        const r = await fetch(`${api}${path}`, { headers: { authorization: `Bearer ${token}` } });
        expect(r.status).toBe(200);
        return (await r.json()) as T;
      };
      let receipt: TaskPage['items'][number] | undefined;
      for (let i = 0; i < 100 && receipt?.status !== 'Completed'; i++) {
        receipt = (await get<TaskPage>('/tasks?taskType=SendReceipt')).items[0];
        if (receipt?.status !== 'Completed') await new Promise((r) => setTimeout(r, 100));
      }
      expect(receipt).toMatchObject({ status: 'Completed', queueName: 'mail' });
      const detail = await get<TaskDetail>(`/tasks/${receipt!.id}`);
      expect(detail.executionLogs.map((l) => l.message)).toEqual(['sending the receipt to ada@example.com']);
      const schedules = await get<TaskPage>('/tasks?taskType=Nightly');
      expect(schedules.items).toHaveLength(1);
      expect(schedules.items[0]).toMatchObject({ isRecurring: true, status: 'Pending' });
      child.kill('SIGTERM');
      expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
