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

/**
 * Every write operation of the engine, prepared once on the writer connection. `instanceId` marks
 * the rows this engine store reserves.
 */
export function prepareEngineStatements(db: Database, instanceId: string) {
  const audit = prepareInsertStatusAudit(db);
  return {
    audit,
    /** Status-audit rows collected by a batch, many per statement. */
    statusAudits: (rows: readonly StatusAuditRow[]) => insertStatusAuditRows(db, rows),
    insertTask: prepareInsertTask(db),
    findOpenTaskByKey: prepareFindOpenTaskByKey(db),
    updatePendingTask: prepareUpdatePendingTask(db),
    countQueued: prepareCountQueued(db),
    promoteDueTasks: preparePromoteDueTasks(db, audit),
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
    nextWakeAt: prepareNextWakeAt(db),
    readTaskState: prepareReadTaskState(db),
  };
}

export type EngineStatements = ReturnType<typeof prepareEngineStatements>;
export type { FinishedRun } from './completeTasks.js';
export type { NewTaskRow } from './insertTask.js';
export type { RunnableTaskRow } from './TaskRow.js';
