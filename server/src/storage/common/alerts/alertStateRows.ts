import type { AlertState, AlertStateStore } from '../../AlertStateStore.js';
import type { ReadDb } from '../reads/ReadDb.js';

interface Row {
  rule: string;
  rule_key: string;
  firing: number;
  changed_at: number | string;
  last_sent_at: number | string | null;
}

/** The alert states over either backend's statements (every statement answers rows, as the operator audit's). */
export function createAlertStateStore(db: ReadDb): AlertStateStore {
  return {
    async list() {
      const rows = await db.query<Row>(`SELECT rule, rule_key, firing, changed_at, last_sent_at FROM alert_states`);
      return rows.map(
        (r): AlertState => ({
          rule: r.rule,
          key: r.rule_key,
          firing: Number(r.firing) === 1,
          changedAtMs: Number(r.changed_at),
          lastSentAtMs: r.last_sent_at === null ? null : Number(r.last_sent_at),
        }),
      );
    },
    async save(s) {
      await db.query(
        `INSERT INTO alert_states (rule, rule_key, firing, changed_at, last_sent_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (rule, rule_key) DO UPDATE SET firing = excluded.firing, changed_at = excluded.changed_at, last_sent_at = excluded.last_sent_at
         RETURNING rule`,
        [s.rule, s.key, s.firing ? 1 : 0, s.changedAtMs, s.lastSentAtMs],
      );
    },
  };
}
