import type { QueryResultRow } from 'pg';
import type { MonitoringStore, PageRequest } from '../../MonitoringStore.js';
import type { PostgresStorage } from '../PostgresStorage.js';
import { pgCatchUpBacklog } from './catchUpBacklog.js';
import { pgCreatedInRange } from './createdInRange.js';
import { pgDashboardOverview } from './dashboardOverview.js';
import { pgExecutionTimes } from './executionTimes.js';
import { pgFailureGroups } from './failureGroups.js';
import { pgGetTaskDetail } from './getTaskDetail.js';
import { pgListTasks } from './listTasks.js';
import { pgManagementTarget } from './managementTarget.js';
import { pgPageExecutionLogs } from './pageExecutionLogs.js';
import { pgPageOccurrences } from './pageOccurrences.js';
import { pgPageRunsAudits } from './pageRunsAudits.js';
import { pgPageStatusAudits } from './pageStatusAudits.js';
import type { PgQuery } from './PgQuery.js';
import { pgQueueMetrics } from './queueMetrics.js';
import { pgRecentActivity } from './recentActivity.js';
import { pgTypeResolver } from './resolveTypeNames.js';
import { pgRunsInRange } from './runsInRange.js';
import { pgScheduleStates } from './scheduleStates.js';
import { pgSelectTaskIds } from './selectTaskIds.js';
import { pgSuccessRateTrend } from './successRateTrend.js';
import { pgTaskCounts } from './taskCounts.js';
import { pgTaskTypes } from './taskTypes.js';

/** The PostgreSQL implementation of the monitoring storage contract: one query per file, same answers as SQLite. */
export function createPostgresMonitoringStore(storage: Pick<PostgresStorage, 'query'>): MonitoringStore {
  const q: PgQuery = async <R extends QueryResultRow>(sql: string, params?: readonly unknown[]) =>
    (await storage.query<R>(sql, params)).rows;
  const statusAudits = pgPageStatusAudits(q);
  const runsAudits = pgPageRunsAudits(q);
  const executionLogs = pgPageExecutionLogs(q);
  const occurrences = pgPageOccurrences(q);
  const createdInRange = pgCreatedInRange(q);
  const runsInRange = pgRunsInRange(q);
  const catchUpBacklog = pgCatchUpBacklog(q);
  const found = async (id: string) => (await q(`SELECT 1 FROM tasks WHERE id = $1`, [id])).length > 0;
  const paged = async <T extends object>(id: string, page: PageRequest, read: (id: string, p: PageRequest) => Promise<T>) => {
    const [exists, body] = await Promise.all([found(id), read(id, page)]);
    return exists ? { ...body, skip: page.skip, take: page.take } : undefined;
  };
  const resolver = pgTypeResolver(q);
  return {
    listTasks: pgListTasks(q, resolver),
    getTask: pgGetTaskDetail(q, { statusAudits, runsAudits, executionLogs }),
    statusAudits: (id, page) => paged(id, page, statusAudits),
    runsAudits: (id, page) => paged(id, page, runsAudits),
    executionLogs: (id, page) => paged(id, page, executionLogs),
    occurrences: (id, nonTerminalOnly, page) => paged(id, page, (i, p) => occurrences(i, nonTerminalOnly, p)),
    counts: pgTaskCounts(q),
    overview: pgDashboardOverview(q, { createdInRange, runsInRange, catchUpBacklog }),
    recentActivity: pgRecentActivity(q),
    queueMetrics: pgQueueMetrics(q),
    successRateTrend: pgSuccessRateTrend(q),
    taskTypes: pgTaskTypes(createdInRange),
    executionTimes: pgExecutionTimes(runsInRange),
    managementTarget: pgManagementTarget(q),
    taskIds: pgSelectTaskIds(q, resolver),
    failureGroups: pgFailureGroups(q),
    scheduleStates: pgScheduleStates(q),
  };
}
