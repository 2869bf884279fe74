import { describe, expect, it } from 'vitest';
import { getJson, insertTask, login, useServed } from '../../fixtures/server/servedMonitoring.js';
import { BACKEND } from '../../fixtures/server/monitoredStore.js';

/** Argument search: requestSearch (request JSON only) and searchScope=NamesAndArguments (names OR arguments). */
describe(`GET /tasks?requestSearch and searchScope on ${BACKEND}`, () => {
  const ids: Record<string, string> = {};
  const s = useServed({ loginRateLimit: false }, (db) => {
    const t0 = Date.now() - 60_000;
    ids.acme = insertTask(db, { request: '{"customer":"ACME-42","note":"big order"}', created_at: t0 + 1, status: 'Failed', queue: 'billing' });
    ids.acme7 = insertTask(db, { request: '{"customer":"ACME-7","note":"small order"}', created_at: t0 + 2, status: 'Queued', queue: 'billing' });
    ids.other = insertTask(db, { request: '{"customer":"Globex","orderId":42}', created_at: t0 + 3, status: 'Failed', queue: 'default' });
    ids.named = insertTask(db, { type: 'Demo.Acme.Sync', request: '{"x":1}', created_at: t0 + 4, status: 'Completed' });
    ids.later = insertTask(db, { request: '{"customer":"ACME-42"}', created_at: t0 + 5, status: 'Completed', queue: 'default' });
  });
  const list = async (query: string, path = '/tasks') => {
    const token = await login(s.api);
    return getJson(`${s.api}${path}?${query}`, token);
  };
  const idsOf = (body: { items: { id: string }[] }) => body.items.map((i) => i.id).sort();

  it('finds a task by a value inside its request (the ACME-42 case)', async () => {
    const r = await list('requestSearch=ACME-42');
    expect(r.status).toBe(200);
    expect(idsOf(r.body)).toEqual([ids.acme, ids.later].sort());
    expect(r.body.totalCount).toBe(2);
  });

  it('matches keys, words and quoted phrases; every term is required', async () => {
    expect(idsOf((await list('requestSearch=orderId')).body)).toEqual([ids.other]);
    expect(idsOf((await list(`requestSearch=${encodeURIComponent('"big order"')}`)).body)).toEqual([ids.acme]);
    expect(idsOf((await list(`requestSearch=${encodeURIComponent('"order big"')}`)).body)).toEqual([]);
    expect(idsOf((await list(`requestSearch=${encodeURIComponent('acme small')}`)).body)).toEqual([ids.acme7]);
    // FTS syntax in the input is taken literally, never as operators.
    expect((await list(`requestSearch=${encodeURIComponent('acme OR globex')}`)).body.totalCount).toBe(0);
  });

  it('combines with the other filters and with the queue route', async () => {
    expect(idsOf((await list('requestSearch=acme&statuses=Failed')).body)).toEqual([ids.acme]);
    expect(idsOf((await list('requestSearch=42&queueName=default')).body)).toEqual([ids.other, ids.later].sort());
    const q = await list('requestSearch=acme', '/queues/billing/tasks');
    expect(q.status).toBe(200);
    expect(idsOf(q.body)).toEqual([ids.acme, ids.acme7].sort());
  });

  it('searchTerm keeps the spec meaning (names only) unless searchScope=NamesAndArguments', async () => {
    expect(idsOf((await list('searchTerm=acme')).body)).toEqual([ids.named]);
    const both = await list('searchTerm=acme&searchScope=NamesAndArguments');
    expect(both.status).toBe(200);
    expect(idsOf(both.body)).toEqual([ids.acme, ids.acme7, ids.named, ids.later].sort());
    expect(both.body.totalCount).toBe(4);
  });

  it('sorts, pages and counts the matches like any other list (every sort field, both directions, past the end)', async () => {
    // The four ACME rows in creation order: acme (t0+1), acme7 (t0+2), later (t0+5); "order" matches acme and acme7.
    const order = (body: { items: { id: string }[] }) => body.items.map((i) => i.id);
    const newest = await list('requestSearch=acme&pageSize=2');
    expect(order(newest.body)).toEqual([ids.later, ids.acme7]);
    expect(newest.body).toMatchObject({ totalCount: 3, page: 1, pageSize: 2, totalPages: 2 });
    const second = await list('requestSearch=acme&pageSize=2&page=2');
    expect(order(second.body)).toEqual([ids.acme]);
    expect(second.body).toMatchObject({ totalCount: 3, page: 2, totalPages: 2 });
    const past = await list('requestSearch=acme&pageSize=2&page=5');
    expect(past.body).toMatchObject({ items: [], totalCount: 3, page: 5, totalPages: 2 });
    expect(order((await list('requestSearch=acme&sortDescending=false')).body)).toEqual([ids.acme, ids.acme7, ids.later]);
    // Status sorts by name (Completed < Failed < Queued), then by creation.
    expect(order((await list('requestSearch=acme&sortBy=Status&sortDescending=false')).body)).toEqual([ids.later, ids.acme, ids.acme7]);
    expect(order((await list('requestSearch=acme&sortBy=QueueName&sortDescending=true')).body)).toEqual([ids.later, ids.acme7, ids.acme]);
    const failedPast = await list('requestSearch=acme&statuses=Failed&page=2');
    expect(failedPast.body).toMatchObject({ items: [], totalCount: 1, totalPages: 1 });
  });

  it('malformed searches are 400 problems naming the parameter', async () => {
    const unbalanced = await list(`requestSearch=${encodeURIComponent('"big order')}`);
    expect(unbalanced.status).toBe(400);
    expect(unbalanced.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Object.keys(unbalanced.body.errors)).toEqual(['requestSearch']);
    const words = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(' ');
    const long = await list(`requestSearch=${encodeURIComponent(words)}`);
    expect(long.status).toBe(400);
    expect(long.body.errors.requestSearch[0]).toMatch(/longer than|at most/);
    const many = await list(`requestSearch=${encodeURIComponent(Array.from({ length: 40 }, (_, i) => `a${i}`).join(' '))}`);
    expect(many.status).toBe(400);
    expect(many.body.errors.requestSearch[0]).toMatch(/at most 16/);
    const punct = await list(`requestSearch=${encodeURIComponent('{ : }')}`);
    expect(punct.status).toBe(400);
    const scoped = await list(`searchTerm=${encodeURIComponent('"x')}&searchScope=NamesAndArguments`);
    expect(scoped.status).toBe(400);
    expect(Object.keys(scoped.body.errors)).toEqual(['searchTerm']);
    const badScope = await list('searchTerm=x&searchScope=Everything');
    expect(badScope.status).toBe(400);
    expect(Object.keys(badScope.body.errors)).toEqual(['searchScope']);
  });
});
