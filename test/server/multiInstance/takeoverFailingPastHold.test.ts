import { describe, expect, it } from 'vitest';
import { createEngine } from '../../../server/src/engine/Engine.js';
import { useSharedDatabase } from '../../fixtures/server/sharedDatabase.js';
import { waitFor } from '../../fixtures/waitFor.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MAX_ABANDONED = 2;

/**
 * PostgreSQL: a claim that takes over a reserved row abandoned past maxAbandoned fails it instead
 * of running it, in a transaction of its own. While that transaction keeps failing, the row stays
 * reserved by the instance; once the reservation's hold is over, the same instance's next claim
 * takes it again, and must fail it again, never run it.
 */
describe('a takeover whose failing keeps failing past the reservation hold', () => {
  const shared = useSharedDatabase('svc_takeover_hold', 3);

  it('the over-limit row is never run by the instance that re-claims it; it ends Failed once the failing can be written', async () => {
    const q = (sql: string, params: unknown[] = []) => shared.storage.query(sql, params);
    const dispatcher = createEngine({ store: shared.store, onError: () => undefined }).handle('Held.OverLimit', () => undefined);
    const id = await dispatcher.dispatch('Held.OverLimit', {});
    // Reserved long ago by an instance that is gone, and abandoned maxAbandoned times already.
    await q(`UPDATE tasks SET reserved_by = 'gone-instance', reserved_at = 0, abandoned_count = $2 WHERE id = $1`, [id, MAX_ABANDONED]);
    // The failing of this row is refused for now (a failing transaction that keeps failing).
    await q(`CREATE FUNCTION refuse_failing() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the failing of % is refused for now', NEW.id; END $$`);
    await q(`CREATE TRIGGER tr_refuse_failing BEFORE UPDATE ON tasks FOR EACH ROW
      WHEN (NEW.status = 'Failed' AND OLD.status <> 'Failed') EXECUTE FUNCTION refuse_failing()`);

    let calls = 0;
    // A hold of 4 × 20 ms: it runs out many times during the wait below.
    const engine = createEngine({ store: shared.store, pollIntervalMs: 20, reservationBudgetMs: 20, maxAbandoned: MAX_ABANDONED, onError: () => undefined });
    engine.handle('Held.OverLimit', () => void calls++);
    await engine.start();
    try {
      const row = async () => (await q(`SELECT status, reserved_by, reserved_at, abandoned_count FROM tasks WHERE id = $1`, [id])).rows[0] as
        { status: string; reserved_by: string | null; reserved_at: string | number | null; abandoned_count: number };
      await waitFor(async () => (await row()).reserved_by === shared.store.instanceId, 10_000, 'the takeover');
      const firstReservation = Number((await row()).reserved_at);
      await waitFor(async () => Number((await row()).reserved_at) !== firstReservation, 10_000, 'the same instance to claim the row again');
      await sleep(300);
      expect(calls).toBe(0);
      expect(await row()).toMatchObject({ status: 'Queued', reserved_by: shared.store.instanceId, abandoned_count: MAX_ABANDONED + 1 });

      await q(`DROP TRIGGER tr_refuse_failing ON tasks`);
      await waitFor(async () => (await row()).status === 'Failed', 10_000, 'the row to be failed');
      expect(calls).toBe(0);
      expect((await row()).abandoned_count).toBe(MAX_ABANDONED + 1);
    } finally {
      await engine.stop({ graceMs: 0 });
      await q(`DROP TRIGGER IF EXISTS tr_refuse_failing ON tasks`);
    }
  }, 30_000);
});
