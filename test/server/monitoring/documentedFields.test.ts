import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, postJson } from './fixtures.js';
import { startPowerHost, until } from '../power/powerFixture.js';

// The answers whose OpenAPI schemas are derived from the handlers' zod schemas: each property the
// document lists must be one a real answer carries, and each property an answer carries must be
// documented.

type Schema = { properties: Record<string, unknown>; required?: string[] };

const keysOf = (answers: readonly object[]) => [...new Set(answers.flatMap((a) => Object.keys(a)))].sort();

describe('the OpenAPI document describes the fields real answers carry', () => {
  let h: Awaited<ReturnType<typeof startPowerHost>>;
  let schemas: Record<string, Schema>;
  beforeAll(async () => {
    h = await startPowerHost({ enableOpenApiDocument: true, magicLinkToken: 'm'.repeat(40) });
    schemas = (await getJson(`${h.s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).body.components.schemas;
    // A finished run in the last minute and a Queued row nobody handles (reserved by an instance
    // elsewhere), so that a queue and a summary carry their additive fields.
    const id = await h.engine.dispatch('Power.Works');
    await until(async () => ((await h.row(id))?.status === 'Completed' ? true : undefined), 'the dispatched task to complete');
    await h.insert({ type: 'Power.NobodyHandles', status: 'Queued', queue: 'default', reserved_by: 'engine-elsewhere', reserved_at: Date.now() });
    // A row due later and a durable schedule with failed occurrences: the optional summary fields.
    await h.insert({ type: 'Power.Later', status: 'Pending', scheduled_at: Date.now() + 3_600_000 });
    await h.schedule(2, 'Failed');
  });
  afterAll(async () => h?.close());

  const documented = (name: string) => Object.keys(schemas[name]!.properties).sort();

  it('auth answers: login, magic link and validate', async () => {
    const login = await postJson(`${h.s.api}/auth/login`, { username: 'admin', password: 'admin' });
    expect(login.status).toBe(200);
    expect(keysOf([login.body])).toEqual(documented('LoginResponse'));
    const magic = await postJson(`${h.s.api}/auth/magic`, { token: 'm'.repeat(40) });
    expect(magic.status).toBe(200);
    expect(keysOf([magic.body])).toEqual(documented('MagicResponse'));
    const validate = await postJson(`${h.s.api}/auth/validate`, {}, h.read);
    expect(validate.status).toBe(200);
    expect(keysOf([validate.body])).toEqual(documented('ValidateResponse'));
  });

  it('counts and queue metrics, including the additive queue fields', async () => {
    const counts = await getJson(`${h.s.api}/tasks/counts`, h.read);
    expect(keysOf([counts.body])).toEqual(documented('TaskCounts'));
    const queues = await getJson(`${h.s.api}/queues`, h.read);
    expect(queues.status).toBe(200);
    const byName = new Map((queues.body as { queueName: string }[]).map((q) => [q.queueName, q]));
    expect(keysOf([byName.get('default')!])).toEqual(documented('QueueMetrics'));
    expect(documented('QueueMetrics')).toEqual(expect.arrayContaining(['oldestQueuedAgeMs', 'finishedLastMinute']));
  });

  it('the task list: every documented summary field is carried by some row', async () => {
    const page = await getJson(`${h.s.api}/tasks?pageSize=100`, h.read);
    expect(page.status).toBe(200);
    expect(keysOf([page.body])).toEqual(documented('TaskPage'));
    expect(keysOf(page.body.items as object[])).toEqual(documented('TaskSummary'));
  });

  it('the login body is parsed by the schema the document prints: each refused field is named', async () => {
    expect(schemas.LoginRequest!.required).toEqual(['username', 'password']);
    const r = await postJson(`${h.s.api}/auth/login`, { username: '', password: 7 });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ username: ['The username is required.'], password: ['The password is required.'] });
  });
});
