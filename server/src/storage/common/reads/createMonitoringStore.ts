import type { MonitoringStore, PageRequest } from '../../MonitoringStore.js';
import { createCatchUpBacklog } from './catchUpBacklog.js';
import { createCreatedInRange } from './createdInRange.js';
import { createDashboardOverview } from './dashboardOverview.js';
import { createExecutionTimes } from './executionTimes.js';
import { createFailureGroups } from './failureGroups.js';
import { createGetTaskDetail } from './getTaskDetail.js';
import { createListTasks } from './listTasks.js';
import { createManagementTarget } from './managementTarget.js';
import { createPageExecutionLogs } from './pageExecutionLogs.js';
import { createPageOccurrences } from './pageOccurrences.js';
import { createPageRunsAudits } from './pageRunsAudits.js';
import { createPageStatusAudits } from './pageStatusAudits.js';
import { createQueueMetrics } from './queueMetrics.js';
import { pendingOccurrenceReads } from './pendingOccurrenceReads.js';
import type { ReadDb } from './ReadDb.js';
import { createRecentActivity } from './recentActivity.js';
import { createTypeResolver } from './resolveTypeNames.js';
import { createRunsInRange } from './runsInRange.js';
import { createScheduleStates } from './scheduleStates.js';
import { createSchemaState } from './schemaState.js';
import { createSelectTaskIds } from './selectTaskIds.js';
import { createSuccessRateTrend } from './successRateTrend.js';
import { createTaskCounts } from './taskCounts.js';
import { createTaskTypes } from './taskTypes.js';

/** The monitoring storage contract over a store's reads: one module per read, the same on every backend. */
export function createMonitoringStore(db: ReadDb): MonitoringStore {
  const resolver = createTypeResolver(db);
  const statusAudits = createPageStatusAudits(db);
  const runsAudits = createPageRunsAudits(db);
  const executionLogs = createPageExecutionLogs(db);
  const occurrences = createPageOccurrences(db);
  const createdInRange = createCreatedInRange(db);
  const runsInRange = createRunsInRange(db);
  const catchUpBacklog = createCatchUpBacklog(db);
  // A compact occurrence is a task too (its id is unique in pending_occurrences).
  const compact = pendingOccurrenceReads(db) !== undefined;
  const found = async (id: string) =>
    (await db.query(`SELECT 1 FROM tasks WHERE id = ?`, [id])).length > 0 ||
    (compact && (await db.query(`SELECT 1 FROM pending_occurrences WHERE id = ?`, [id])).length > 0);
  const paged = async <T extends object>(id: string, page: PageRequest, read: (id: string, p: PageRequest) => Promise<T>) => {
    const [exists, body] = await Promise.all([found(id), read(id, page)]);
    return exists ? { ...body, skip: page.skip, take: page.take } : undefined;
  };
  return {
    listTasks: createListTasks(db, resolver),
    taskIds: createSelectTaskIds(db, resolver),
    getTask: createGetTaskDetail(db, { statusAudits, runsAudits, executionLogs }),
    statusAudits: (id, page) => paged(id, page, statusAudits),
    runsAudits: (id, page) => paged(id, page, runsAudits),
    executionLogs: (id, page) => paged(id, page, executionLogs),
    occurrences: (id, nonTerminalOnly, page) => paged(id, page, (i, p) => occurrences(i, nonTerminalOnly, p)),
    counts: createTaskCounts(db),
    overview: createDashboardOverview(db, { createdInRange, runsInRange, catchUpBacklog }),
    recentActivity: createRecentActivity(db),
    queueMetrics: createQueueMetrics(db),
    successRateTrend: createSuccessRateTrend(db),
    taskTypes: createTaskTypes(createdInRange),
    executionTimes: createExecutionTimes(runsInRange),
    managementTarget: createManagementTarget(db),
    failureGroups: createFailureGroups(db),
    scheduleStates: createScheduleStates(db),
    schemaState: createSchemaState(db),
  };
}
