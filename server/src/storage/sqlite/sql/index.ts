import type { Database } from 'better-sqlite3';
import { prepareAdmitWaitingTasks } from './admitWaitingTasks.js';
import { prepareCancelWaitingTask } from './cancelWaitingTask.js';
import { prepareClaimTasks } from './claimTasks.js';
import { prepareClaimTasksAtOnce } from './claimTasksAtOnce.js';
import { prepareCompleteTasks } from './completeTasks.js';
import { prepareCountQueued } from './countQueued.js';
import { prepareFindOpenTaskByKey } from './findOpenTaskByKey.js';
import { prepareInsertExecutionLog } from './insertExecutionLog.js';
import { prepareInsertStatusAudit } from './insertStatusAudit.js';
import { prepareInsertTask } from './insertTask.js';
import { insertStatusAuditRows, type StatusAuditRow } from './insertStatusAuditRows.js';
import { prepareLastLogSequence } from './lastLogSequence.js';
import { prepareMarkServiceStopped } from './markServiceStopped.js';
import { prepareNextWakeAt } from './nextWakeAt.js';
import { preparePromoteDueTasks } from './promoteDueTasks.js';
import { prepareReadTaskState } from './readTaskState.js';
import { prepareRecordAttemptFailure } from './recordAttemptFailure.js';
import { prepareRecoverTasks } from './recoverTasks.js';
import { prepareStartAndEndRuns } from './startAndEndRuns.js';
import { prepareReleaseReservations, prepareStartRuns } from './startRuns.js';
import { prepareUpdatePendingTask } from './updatePendingTask.js';
import { hasPendingOccurrences, spillPendingOccurrences, type SpillSelection } from './spillPendingOccurrences.js';
import type { ReadModelDeltas } from './readModels/ReadModelDeltas.js';

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
    statusAudits: (rows: readonly StatusAuditRow[]) => insertStatusAuditRows(db, rows),
    insertTask: prepareInsertTask(db),
    findOpenTaskByKey: prepareFindOpenTaskByKey(db),
    updatePendingTask: prepareUpdatePendingTask(db),
    countQueued: prepareCountQueued(db),
    promoteDueTasks: preparePromoteDueTasks(db, audit, compact),
    admitWaitingTasks: prepareAdmitWaitingTasks(db, audit),
    claimTasks: prepareClaimTasks(db, instanceId),
    claimTasksAtOnce: prepareClaimTasksAtOnce(db, instanceId),
    startRuns: prepareStartRuns(db, instanceId),
    startAndEndRuns: prepareStartAndEndRuns(db, instanceId),
    releaseReservations: prepareReleaseReservations(db, instanceId),
    completeTasks: prepareCompleteTasks(db),
    recordAttemptFailure: prepareRecordAttemptFailure(db),
    cancelWaitingTask: prepareCancelWaitingTask(db, audit),
    markServiceStopped: prepareMarkServiceStopped(db, audit),
    recoverTasks: prepareRecoverTasks(db, audit),
    insertExecutionLog: prepareInsertExecutionLog(db),
    lastLogSequence: prepareLastLogSequence(db),
    nextWakeAt: prepareNextWakeAt(db, compact),
    readTaskState: prepareReadTaskState(db),
  };
}

export type EngineStatements = ReturnType<typeof prepareEngineStatements>;
export type { FinishedRun } from './completeTasks.js';
export type { NewTaskRow } from './insertTask.js';
export type { RunnableTaskRow } from './TaskRow.js';
