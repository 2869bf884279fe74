import type { Database } from 'better-sqlite3';
import type { Reservation, StartedRun } from '../../EngineStore.js';
import type { ClaimedGroups } from './claimedGroups.js';
import { auditAllows } from '../../common/auditAllows.js';
import { insertStatusAudits, type StatusAuditRow } from './insertStatusAudits.js';
import type { ReadModelDeltas, TaskGroup } from '../readModels/readModelDeltas.js';
import { TASK_GROUP_COLUMNS } from '../readModels/TaskGroupColumns.js';
import { priorStatusCondition } from '../../common/statusTransitions.js';
import { UPDATE_TASK_STATUS } from './taskStatusUpdate.js';

/**
 * Handlers that began on rows this store reserved: Queued → InProgress with the instant the
 * handler began as `started_at` and as its audit time, the run's token written, the reservation
 * dropped (`reserved_at` kept: when the row was taken). A row that is no longer Queued under this very reservation (cancelled by any process,
 * or taken over by another engine after its reservation ran out) is left alone: the run is not
 * recorded, and the engine abandons it. Returns one flag per start.
 */
export function prepareStartRuns(
  db: Database,
  instanceId: string,
): (starts: readonly StartedRun[], deltas: ReadModelDeltas, claimed: ClaimedGroups) => boolean[] {
  // reserved_at stays: the instant the row was taken (and counted by a rate window).
  const set = `SET status = 'InProgress', started_at = ?, run_token = ?, reserved_by = NULL`;
  const guard = `${priorStatusCondition('startRuns', 'status', 'InProgress', ['Queued'])} AND reserved_by = ? AND reserved_at = ?`;
  const startKnown = db.prepare(`${UPDATE_TASK_STATUS} ${set} WHERE rowid = ? AND id = ? AND ${guard}`);
  const start = db.prepare(`${UPDATE_TASK_STATUS} ${set} WHERE id = ? AND ${guard} RETURNING ${TASK_GROUP_COLUMNS}`);
  return (starts, deltas, claimed) => {
    const audits: StatusAuditRow[] = [];
    const out = starts.map((s) => {
      const known = claimed.peek(s.id);
      let group: TaskGroup | undefined;
      if (known !== undefined && known.rowKey !== null
        && startKnown.run(s.startedAt, s.token, known.rowKey, s.id, instanceId, s.reservedAt).changes === 1) group = known;
      group ??= start.get(s.startedAt, s.token, s.id, instanceId, s.reservedAt) as TaskGroup | undefined;
      if (group === undefined) {
        claimed.forget(s.id);
        return false;
      }
      deltas.moved(group, 'Queued', 'InProgress');
      if (auditAllows(s.auditLevel, null)) audits.push([s.id, s.startedAt, 'InProgress', null]);
      return true;
    });
    if (audits.length > 0) insertStatusAudits(db, audits);
    return out;
  };
}

/** Reserved rows handed back unstarted: the reservation dropped (they stay Queued for any engine). */
export function prepareReleaseReservations(db: Database, instanceId: string): (rows: readonly Reservation[], claimed: ClaimedGroups) => void {
  const release = db.prepare(`UPDATE tasks SET reserved_by = NULL, reserved_at = NULL
    WHERE id = ? AND status = 'Queued' AND reserved_by = ? AND reserved_at = ?`);
  return (rows, claimed) => {
    for (const r of rows) {
      claimed.forget(r.id);
      release.run(r.id, instanceId, r.reservedAt);
    }
  };
}
