import type { Database } from 'better-sqlite3';
import { preparedStatement } from './preparedStatement.js';

/** Halt block of spec §2.6, stored as JSON with UTC ISO timestamps; null clears it. */
export interface StoredHalt {
  atUtc: string;
  reason: 'OverflowCapExceeded';
  detectedAtLeast: number;
  isExact: boolean;
  cursorUtc: string;
  scheduleVersion: number;
}

export function setScheduleHalt(db: Database, id: string, halt: StoredHalt | null, nextSlotAt?: number | null): void {
  if (nextSlotAt === undefined) {
    preparedStatement(db, 'UPDATE tasks SET halt = ? WHERE id = ?').run(halt === null ? null : JSON.stringify(halt), id);
  } else {
    preparedStatement(db, 'UPDATE tasks SET halt = ?, scheduled_at = ? WHERE id = ?').run(halt === null ? null : JSON.stringify(halt), nextSlotAt, id);
  }
}
