import type { StoredHalt } from '../../EngineStore.js';
import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

export type { StoredHalt };

export function setScheduleHalt(db: Database, id: string, halt: StoredHalt | null, nextSlotAt?: number | null): void {
  if (nextSlotAt === undefined) {
    preparedStatement(db, 'UPDATE tasks SET halt = ? WHERE id = ?').run(halt === null ? null : JSON.stringify(halt), id);
  } else {
    preparedStatement(db, 'UPDATE tasks SET halt = ?, scheduled_at = ? WHERE id = ?').run(halt === null ? null : JSON.stringify(halt), nextSlotAt, id);
  }
}
