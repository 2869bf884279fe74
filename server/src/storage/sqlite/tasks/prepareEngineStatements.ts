import type { Database } from 'better-sqlite3';
import { prepareAdmitWaiting } from './admitWaiting.js';
import { prepareCancelTasks } from './cancelTasks.js';
import { prepareClaimTasks } from './claimTasks.js';
import { prepareClaimTasksAtOnce } from './claimTasksAtOnce.js';
import { prepareCompleteRuns } from './completeRuns.js';
import { prepareCountQueued } from './countQueued.js';
import { prepareFindOpenTaskByKey } from './findOpenTaskByKey.js';
import { prepareInsertExecutionLogs } from './insertExecutionLogs.js';
import { prepareInsertStatusAudit } from './insertStatusAudit.js';
import { prepareInsertTasks } from './insertTasks.js';
import { insertStatusAudits, type StatusAuditRow } from './insertStatusAudits.js';
import { prepareLastLogSequence } from './lastLogSequence.js';
import { prepareMarkServiceStopped } from './markServiceStopped.js';
import { prepareNextWakeAt } from './nextWakeAt.js';
import { preparePromoteDue } from './promoteDue.js';
import { prepareReadTaskState } from './readTaskState.js';
import { prepareRecordAttemptFailures } from './recordAttemptFailures.js';
import { prepareRecoverTasks } from './recoverTasks.js';
import { prepareStartAndEndRuns } from './startAndEndRuns.js';
import { prepareReleaseReservations, prepareStartRuns } from './startRuns.js';
import { prepareUpdatePendingTask } from './updatePendingTask.js';
import { hasPendingOccurrences, spillPendingOccurrences, type SpillSelection } from '../schedules/spillPendingOccurrences.js';
import type { ReadModelDeltas } from '../readModels/readModelDeltas.js';

/**
 * Every write operation of the engine, prepared once on the writer connection. `instanceId` marks
 * the rows this engine store reserves.
 */
export function prepareEngineStatements(db: Database, instanceId: string) {
  const audit = prepareInsertStatusAudit(db);
  const compact = hasPendingOccurrences(db);
  return {
    /** Compact occurrences (migration 15) → task rows; see spillPendingOccurrences. */
    spill: (deltas: ReadModelDeltas, sel: SpillSelection, limit?: number) => (compact ? spillPendingOccurrences(db, deltas, sel, limit) : 0),
    audit,
    /** Status-audit rows collected by a batch, many per statement. */
    statusAudits: (rows: readonly StatusAuditRow[]) => insertStatusAudits(db, rows),
    insertTask: prepareInsertTasks(db),
    findOpenTaskByKey: prepareFindOpenTaskByKey(db),
    updatePendingTask: prepareUpdatePendingTask(db),
    countQueued: prepareCountQueued(db),
    promoteDue: preparePromoteDue(db, audit, compact),
    admitWaiting: prepareAdmitWaiting(db, audit),
    claimTasks: prepareClaimTasks(db, instanceId),
    claimTasksAtOnce: prepareClaimTasksAtOnce(db, instanceId),
    startRuns: prepareStartRuns(db, instanceId),
    startAndEndRuns: prepareStartAndEndRuns(db, instanceId),
    releaseReservations: prepareReleaseReservations(db, instanceId),
    completeRuns: prepareCompleteRuns(db),
    recordAttemptFailure: prepareRecordAttemptFailures(db),
    cancelWaitingTask: prepareCancelTasks(db, audit),
    markServiceStopped: prepareMarkServiceStopped(db, audit),
    recoverTasks: prepareRecoverTasks(db, audit),
    insertExecutionLog: prepareInsertExecutionLogs(db),
    lastLogSequence: prepareLastLogSequence(db),
    nextWakeAt: prepareNextWakeAt(db, compact),
    readTaskState: prepareReadTaskState(db),
  };
}

export type EngineStatements = ReturnType<typeof prepareEngineStatements>;
export type { FinishedRun } from './completeRuns.js';
export type { NewTaskRow } from './insertTasks.js';
export type { RunnableTaskRow } from './TaskRow.js';
