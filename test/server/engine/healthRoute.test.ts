// @backends sqlite deferred — the SQLite database file deleted or replaced.
import { unlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type Served } from '../../fixtures/server/servedMonitoring.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  await closeAll();
});

describe('GET /svc-monitoring/api/health', () => {
  it('answers without authentication: ok, then failed with a generic reason once the database file is deleted', async () => {
    const h = harness({ pollIntervalMs: 30 });
    h.engine.on('error', () => undefined);
    await h.engine.start();
    served = await serve({ engine: h.engine, storage: h.storage }, { enableAuthentication: true });
    const get = async () => {
      const res = await fetch(`${served!.api}/health`);
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect(await get()).toEqual({ status: 200, body: { status: 'ok' } });
    // a protected route still needs a token
    expect((await fetch(`${served.api}/tasks`)).status).toBe(401);

    for (const suffix of ['', '-wal', '-shm']) {
      try {
        unlinkSync(h.file + suffix);
      } catch {
        /* not there */
      }
    }
    await waitFor(async () => h.engine.health().status === 'failed', 2000, 'failed health');
    const after = await get();
    // 503 so that a probe or a load balancer acts on it; the body is unchanged.
    expect(after.status).toBe(503);
    expect(after.body).toEqual({ status: 'failed', reason: expect.stringMatching(/cannot write/) });
    expect(JSON.stringify(after.body)).not.toContain(h.file); // no details for an unauthenticated caller
    // Readiness says the engine failed; liveness still answers (the process does).
    const ready = await fetch(`${served.baseUrl}/svc-monitoring/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'unavailable', engine: 'failed' });
    expect((await fetch(`${served.baseUrl}/svc-monitoring/health/live`)).status).toBe(200);
  });
});
