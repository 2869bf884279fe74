import type { Database } from 'better-sqlite3';

/**
 * A number that moves whenever the database may have been changed by anything other than this
 * store's own group commits: a commit of another connection (PRAGMA data_version moves) or a
 * write on this very connection outside those commits (a schedule cancel, a bulk action, any
 * management write: total_changes() moves). What this store knew of a row at one epoch still
 * holds while the epoch is the same, as far as writers other than its commits go.
 */
export class ForeignWrites {
  private readonly stamp;
  private version = -1;
  private changes = -1;
  private epoch = 0;

  constructor(db: Database) {
    this.stamp = db.prepare('SELECT data_version AS v, total_changes() AS c FROM pragma_data_version');
  }

  /** The epoch now: moved when anything wrote since the last look (this store's commits excepted, see `ownCommitEnded`). */
  current(): number {
    const s = this.stamp.get() as { v: number; c: number };
    if (s.v !== this.version || s.c !== this.changes) {
      this.epoch++;
      this.version = s.v;
      this.changes = s.c;
    }
    return this.epoch;
  }

  /**
   * After one of this store's commits (written or rolled back), which `current()` preceded: its own
   * changes are not foreign. Another connection's commit seen since still moves the epoch.
   */
  ownCommitEnded(): void {
    const s = this.stamp.get() as { v: number; c: number };
    if (s.v !== this.version) this.epoch++;
    this.version = s.v;
    this.changes = s.c;
  }
}
