import { describe, expect, it } from 'vitest';
import type { FailureGroup } from '../../../server/src/contracts/index.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';
import { finishRun, getJson, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';

const HOUR = 3_600_000;
// The failures lie up to 4 h back; the test reads them with range=Week so that a run shortly after
// midnight UTC (when "Today" holds none of them) still sees every group.
const NOW = Date.now();

/** A failure group links to its own tasks: GET /tasks?taskType=…&failureFingerprint=… lists exactly them. */
describe(`failureFingerprint on GET /tasks over a ${BACKEND} store`, () => {
  const ids: Record<string, string[]> = { smtp: [], typeError: [], otherType: [], recovered: [] };
  const s = useServed({ loginRateLimit: false, enableOpenApiDocument: true }, (db) => {
    const fail = (type: string, at: number, exception: string) => {
      const id = insertTask(db, { type, status: 'InProgress', created_at: at - 1000 });
      finishRun(db, id, 'Failed', at, 0, exception);
      return id;
    };
    ids.smtp!.push(fail('Billing.SendInvoice', NOW - 2 * HOUR, 'Error: SMTP 421 from mail-7.example for invoice 1001'));
    ids.smtp!.push(fail('Billing.SendInvoice', NOW - HOUR, 'Error: SMTP 450 from mail-2.example for invoice 1002\n  at send'));
    ids.typeError!.push(fail('Billing.SendInvoice', NOW - 3 * HOUR, 'TypeError: amount is not a number'));
    ids.otherType!.push(fail('Reports.Nightly', NOW - 2 * HOUR, 'Error: SMTP 421 from mail-9.example for invoice 7'));
    // Failed that way once, then ran again and completed: no longer failing with it.
    const recovered = fail('Billing.SendInvoice', NOW - 4 * HOUR, 'Error: SMTP 421 from mail-1.example for invoice 3');
    finishRun(db, recovered, 'Completed', NOW - 30 * 60_000, 12, 'Error: SMTP 421 from mail-1.example for invoice 3');
    ids.recovered!.push(recovered);
  });

  const list = async (token: string, query: Record<string, string>) => {
    const r = await getJson(`${s.api}/tasks?${new URLSearchParams({ pageSize: '50', ...query })}`, token);
    expect(r.status).toBe(200);
    return { total: r.body.totalCount as number, ids: (r.body.items as { id: string }[]).map((t) => t.id).sort() };
  };

  it('each group of GET /statistics/failure-groups filters the list to the tasks failing with its fingerprint', async () => {
    const token = await login(s.api);
    const groups = (await getJson(`${s.api}/statistics/failure-groups?range=Week`, token)).body.groups as FailureGroup[];
    const smtp = groups.find((g) => g.taskType === 'Billing.SendInvoice' && g.fingerprint.startsWith('Error: SMTP'))!;
    const typeError = groups.find((g) => g.fingerprint === 'TypeError: amount is not a number')!;
    expect(smtp.fingerprint).toBe('Error: SMTP # from mail-#.example for invoice #');
    expect(await list(token, { taskType: smtp.taskType, failureFingerprint: smtp.fingerprint })).toEqual({ total: 2, ids: [...ids.smtp!].sort() });
    expect(await list(token, { taskType: typeError.taskType, failureFingerprint: typeError.fingerprint })).toEqual({ total: 1, ids: ids.typeError });
    // Without the type: every type failing that way; combined with other filters as any filter is.
    expect((await list(token, { failureFingerprint: smtp.fingerprint })).ids).toEqual([...ids.smtp!, ...ids.otherType!].sort());
    expect((await list(token, { failureFingerprint: smtp.fingerprint, statuses: 'Completed' })).total).toBe(0);
    expect((await list(token, { failureFingerprint: 'Error: nothing like this' })).total).toBe(0);
    // An empty value is no filter.
    expect((await list(token, { taskType: 'Billing.SendInvoice', failureFingerprint: '' })).total).toBe(4);
  });

  it('the OpenAPI document lists the parameter on both task lists', async () => {
    const doc = (await getJson(`${s.baseUrl}/svc-monitoring/openapi/svc-monitoring.json`)).body;
    for (const path of ['/tasks', '/queues/{name}/tasks']) {
      const names = (doc.paths[path].get.parameters as { name: string }[]).map((p) => p.name);
      expect(names, path).toContain('failureFingerprint');
    }
  });
});
