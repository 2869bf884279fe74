import type { Database } from 'better-sqlite3';
import { asyncMonitoringStore, type MonitoringStore, type PageRequest } from '../MonitoringStore.js';
import { createCatchUpBacklog } from './catchUpBacklog.js';
import { createCreatedInRange } from './createdInRange.js';
import { createDashboardOverview } from './dashboardOverview.js';
import { createExecutionTimes } from './executionTimes.js';
import { createGetTaskDetail } from './getTaskDetail.js';
import { createListTasks } from './listTasks.js';
import { createManagementTarget } from './managementTarget.js';
import { createPageExecutionLogs } from './pageExecutionLogs.js';
import { createPageOccurrences } from './pageOccurrences.js';
import { createPageRunsAudits } from './pageRunsAudits.js';
import { createPageStatusAudits } from './pageStatusAudits.js';
import { createQueueMetrics } from './queueMetrics.js';
import { createRecentActivity } from './recentActivity.js';
import { createTypeResolver } from './resolveTypeNames.js';
import { createRunsInRange } from './runsInRange.js';
import { createSelectTaskIds } from './selectTaskIds.js';
import { createFailureGroups } from './failureGroups.js';
import { detectSchemaFeatures } from './schemaFeatures.js';
import { createScheduleStates } from './scheduleStates.js';
import { createSuccessRateTrend } from './successRateTrend.js';
import { createTaskCounts } from './taskCounts.js';
import { createTaskTypes } from './taskTypes.js';

/** The SQLite implementation of the monitoring storage contract: one prepared query per file. */
export function createSqliteMonitoringStore(db: Database): MonitoringStore {
  const features = detectSchemaFeatures(db);
  const resolver = createTypeResolver(db, features);
  const exists = db.prepare(`SELECT 1 FROM tasks WHERE id = ?`).pluck();
  const statusAudits = createPageStatusAudits(db);
  const runsAudits = createPageRunsAudits(db);
  const executionLogs = createPageExecutionLogs(db);
  const occurrences = createPageOccurrences(db);
  const createdInRange = createCreatedInRange(db);
  const runsInRange = createRunsInRange(db);
  const catchUpBacklog = createCatchUpBacklog(db);
  const found = (id: string) => exists.get(id) !== undefined;
  const paged = <T extends object>(id: string, page: PageRequest, read: (id: string, p: PageRequest) => T) =>
    found(id) ? { ...read(id, page), skip: page.skip, take: page.take } : undefined;

  // The contract is Promise-returning; SQLite answers synchronously inside.
  return asyncMonitoringStore({
    listTasks: createListTasks(db, resolver, features),
    getTask: createGetTaskDetail(db, features, { statusAudits, runsAudits, executionLogs }),
    statusAudits: (id, page) => paged(id, page, statusAudits),
    runsAudits: (id, page) => paged(id, page, runsAudits),
    executionLogs: (id, page) => paged(id, page, executionLogs),
    occurrences: (id, nonTerminalOnly, page) =>
      found(id) ? { ...occurrences(id, nonTerminalOnly, page), skip: page.skip, take: page.take } : undefined,
    counts: createTaskCounts(db),
    overview: createDashboardOverview(db, { createdInRange, runsInRange, catchUpBacklog }),
    recentActivity: createRecentActivity(db),
    queueMetrics: createQueueMetrics(db, features),
    successRateTrend: createSuccessRateTrend(db),
    taskTypes: createTaskTypes(createdInRange),
    executionTimes: createExecutionTimes(runsInRange),
    managementTarget: createManagementTarget(db),
    taskIds: createSelectTaskIds(db, resolver, features),
    failureGroups: createFailureGroups(db, features),
    scheduleStates: createScheduleStates(db),
  });
}
