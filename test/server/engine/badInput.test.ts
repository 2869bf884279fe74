// @backends sqlite postgres — input is refused before any store call.
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/index.js';
import { closeAll, harness } from '../../fixtures/server/engineHarness.js';
import { waitFor } from '../../fixtures/waitFor.js';

afterEach(closeAll);

describe('bad input: an Error naming the problem, nothing written', () => {
  it('dispatch and recurring refuse bad input and write no row', async () => {
    const h = harness({ queues: { fast: { concurrency: 1 } } });
    h.engine.handle('Ok.Job', () => undefined);
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const cases: [Promise<unknown>, RegExp][] = [
      [h.engine.dispatch('Not.Registered', {}), /no handler is registered for task type "Not\.Registered"/],
      [h.engine.dispatch('Ok.Job', { f: () => 1 }), /not JSON-serialisable: request\.f is a function/],
      [h.engine.dispatch('Ok.Job', { n: 10n }), /request\.n is a bigint/],
      [h.engine.dispatch('Ok.Job', circular), /circular reference/],
      [h.engine.dispatch('Ok.Job', { m: new Map() }), /request\.m is a Map/],
      [h.engine.dispatch('Ok.Job', { x: NaN }), /request\.x is NaN/],
      [h.engine.dispatch('Ok.Job', {}, { queue: 42 as unknown as string }), /option "queue"/],
      [h.engine.dispatch('Ok.Job', {}, { qeue: 'mail' } as never), /unknown option "qeue"/],
      [h.engine.dispatch('Ok.Job', {}, { quue: 'fast' } as never), /unknown option "quue"/],
      [h.engine.dispatch('Ok.Job', {}, { delayMs: -5 }), /"delayMs" must not be negative/],
      [h.engine.dispatch('Ok.Job', {}, { runAt: 'not a date' }), /"runAt" must be a valid date/],
      [h.engine.dispatch('Ok.Job', {}, { auditLevel: 'Loud' as never }), /"auditLevel" must be one of/],
      [h.engine.dispatch('Ok.Job', {}, { retry: { attempts: 0 } }), /option "retry\.attempts" must be an integer ≥ 1/],
      [h.engine.recurring('Ok.Job', {}, { cron: 'not a cron' }), /cron: invalid pattern "not a cron"/],
      [h.engine.recurring('Ok.Job', {}, { cron: '0 * * * *', timeZone: 'Mars/Olympus' }), /unknown IANA time zone "Mars\/Olympus"/],
      [h.engine.recurring('Ok.Job', {}, { cron: '0 0 30 2 *' }), /has no run/],
      [h.engine.recurring('Ok.Job', {}, {}), /option "every" or option "cron" is needed/],
      [h.engine.recurring('Ok.Job', {}, { every: 'soon' }), /"every" must be a positive interval/],
      [h.engine.recurring('Ok.Job', {}, { every: '1m', until: Date.now() - 1000 }), /has no run/],
    ];
    for (const [p, re] of cases) await expect(p).rejects.toThrow(re);
    await h.engine.start();
    // A good task dispatched after the bad ones runs to the end: every write before it is
    // committed, so the store holds exactly that one task and its audits.
    const good = await h.engine.dispatch('Ok.Job', {});
    await waitFor(async () => (await h.status(good)) === 'Completed', 5000, 'the good task');
    expect(await h.probe.values('SELECT id FROM tasks')).toEqual([good]);
    expect(await h.probe.value('SELECT COUNT(*) FROM status_audit')).toBe(3);
  });

  it('U+0000 or an unpaired surrogate in a type, queue, task key or rate-limit key: the same Error on every store, nothing written', async () => {
    const h = harness({ queues: { fast: { concurrency: 1 } } });
    h.engine.handle('Ok.Job', () => undefined);
    const unstorable = /must not contain U\+0000 or an unpaired UTF-16 surrogate/;
    const cases: [() => Promise<unknown>, RegExp][] = [
      [() => h.engine.dispatch('Ok\u0000Job', {}), /^dispatch: type must not contain U\+0000/],
      [() => h.engine.dispatch('Ok.Job', {}, { taskKey: 'key\u0000' }), /option "taskKey" must not contain U\+0000/],
      [() => h.engine.dispatch('Ok.Job', {}, { taskKey: 'key\ud800' }), /option "taskKey" must not contain/],
      [() => h.engine.dispatch('Ok.Job', {}, { queue: 'fast\u0000' }), /option "queue" must not contain U\+0000/],
      [() => h.engine.dispatch('Ok.Job', {}, { rateLimitKey: '\u0000' }), /option "rateLimitKey" must not contain U\+0000/],
      [() => h.engine.recurring('Ok.Job', {}, { every: '1h', taskKey: 'nightly\u0000' }), /option "taskKey" must not contain U\+0000/],
      [() => h.engine.schedules.upsert({ key: 'nul\u0000key', type: 'Ok.Job', every: '1h' }), /"key" must not contain U\+0000/],
      [() => h.engine.schedules.upsert({ key: 'ok', type: 'Ok\u0000Job', every: '1h' }), /"type" must not contain U\+0000/],
      [() => h.engine.schedules.upsert({ key: 'ok', type: 'Ok.Job', every: '1h', queue: 'q\u0000' }), /"queue" must not contain U\+0000/],
    ];
    for (const [call, re] of cases) {
      await expect(call()).rejects.toThrow(re);
      await expect(call()).rejects.toThrow(unstorable);
    }
    expect(await h.engine.schedules.cancel('nul\u0000key')).toMatchObject({ status: 'NotFound' });
    expect(() => h.engine.handle('Nul\u0000Type', () => undefined)).toThrow(/^handle: type must not contain U\+0000/);
    expect(() => h.engine.handle('Ok.Other', () => undefined, { handlerName: 'x\u0000' })).toThrow(/option "handlerName" must not contain U\+0000/);
    const storage = h.sut.sqlite === undefined ? { store: h.sut.store } : { storage: h.sut.sqlite };
    expect(() => createEngine({ ...storage, queues: { ['q\u0000']: { concurrency: 1 } } })).toThrow(/option "queues".*must not contain U\+0000/);
    await h.engine.start();
    const good = await h.engine.dispatch('Ok.Job', {}, { taskKey: 'key' });
    await waitFor(async () => (await h.status(good)) === 'Completed', 5000, 'the good task');
    expect(await h.probe.values('SELECT id FROM tasks')).toEqual([good]);
  });

  it('createEngine names the bad option', () => {
    const h = harness();
    // the storage (SQLite) or the store (PostgreSQL) under test, with each bad option
    const storage = h.sut.sqlite === undefined ? { store: h.sut.store } : { storage: h.sut.sqlite };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ ...storage, pollIntervalMs: 0 }, /option "pollIntervalMs"/],
      [{ ...storage, auditLevel: 'Most' }, /option "auditLevel"/],
      [{ ...storage, logCapPerRun: -1 }, /option "logCapPerRun"/],
      [{ ...storage, queues: { q: { concurrency: 0 } } }, /option "queues\.q\.concurrency"/],
      [{ ...storage, queues: { q: { capacity: 1.5 } } }, /option "queues\.q\.capacity"/],
      [{ ...storage, queues: { q: { workers: 2 } } }, /unknown option "queues\.q\.workers"/],
      [{ ...storage, retry: { backoff: 'linear' } }, /option "retry\.backoff"/],
      [{ ...storage, clock: 5 }, /option "clock"/],
      [{ ...storage, colour: 'red' }, /unknown option "colour"/],
      [{}, /option "storage"/],
    ];
    for (const [options, re] of bad) expect(() => createEngine(options as never)).toThrow(re);
  });

  it('handle validates its arguments', () => {
    const h = harness();
    expect(() => h.engine.handle('', () => undefined)).toThrow(/type/);
    expect(() => h.engine.handle('A.B', 'x' as never)).toThrow(/handler must be a function/);
    expect(() => h.engine.handle('A.B', () => undefined, { rateLimit: { limit: 0, windowMs: 10 } })).toThrow(/rateLimit\.limit/);
    h.engine.handle('A.B', () => undefined);
    expect(() => h.engine.handle('A.B', () => undefined)).toThrow(/already registered/);
  });
});
