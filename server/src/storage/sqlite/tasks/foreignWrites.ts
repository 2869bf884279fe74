import type { Database } from 'better-sqlite3';
import { taskWritesOn } from '../readModels/taskWriter.js';

/**
 * A number that moves whenever task rows may have been changed by anything other than one store's
 * own group commits: a commit of another connection (PRAGMA data_version moves) or a task-row
 * write on this very connection outside those commits (a schedule cancel or definition change, a
 * bulk action, a retry: every one goes through the connection's task writer, which counts them).
 * What the store knew of a row at one epoch still holds while the epoch is the same.
 *
 * data_version is read once per synchronous stretch of code (the engine asks for each start of one
 * pump; reading it per start was 2–3% of the engine's CPU): another process's commit landing
 * inside one stretch is caught by the start's write (fenced). This connection's writes are counted
 * as they happen, so a write made by code running inside the stretch (a handler) is never missed.
 */
export class ForeignWrites {
  private readonly dataVersion;
  private versionThisTurn: number | null = null;
  private version = -1;
  private writes = -1;
  private epoch = 0;

  constructor(private readonly db: Database) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  private currentVersion(): number {
    if (this.versionThisTurn === null) {
      this.versionThisTurn = this.dataVersion.get() as number;
      queueMicrotask(() => (this.versionThisTurn = null));
    }
    return this.versionThisTurn;
  }

  /** The epoch now: moved when anyone but the store's own commits wrote since the last look. */
  current(): number {
    const v = this.currentVersion();
    const w = taskWritesOn(this.db);
    if (v !== this.version || w !== this.writes) {
      this.epoch++;
      this.version = v;
      this.writes = w;
    }
    return this.epoch;
  }

  /**
   * After one of the store's own commits (written or rolled back), which `current()` preceded: its
   * own write is not foreign. A commit of another connection seen since still moves the epoch.
   */
  ownCommitEnded(): void {
    this.versionThisTurn = null;
    const v = this.currentVersion();
    if (v !== this.version) this.epoch++;
    this.version = v;
    this.writes = taskWritesOn(this.db);
  }
}
