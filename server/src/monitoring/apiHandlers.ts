import type { RequestHandler } from 'express';
import type { ApiOperation } from '../contracts/index.js';
import { bulkActionHandler } from './handlers/bulkAction.js';
import { bulkStatusHandler } from './handlers/bulkStatus.js';
import { cancelScheduleHandler } from './handlers/cancelSchedule.js';
import { dashboardOverviewHandler } from './handlers/dashboardOverview.js';
import { executionLogsHandler } from './handlers/executionLogs.js';
import { executionTimesHandler } from './handlers/executionTimes.js';
import { failureGroupsHandler } from './handlers/failureGroups.js';
import { getConfigHandler } from './handlers/getConfig.js';
import { getHealthHandler } from './handlers/getHealth.js';
import { getTaskHandler } from './handlers/getTask.js';
import { listQueueTasksHandler } from './handlers/listQueueTasks.js';
import { listQueuesHandler } from './handlers/listQueues.js';
import { listTasksHandler } from './handlers/listTasks.js';
import { loginHandler } from './handlers/login.js';
import { magicGetHandler, magicPostHandler } from './handlers/magicLink.js';
import { occurrencesHandler } from './handlers/occurrences.js';
import { operatorAuditHandler } from './handlers/operatorAudit.js';
import { recentActivityHandler } from './handlers/recentActivity.js';
import { requeueTaskHandler } from './handlers/requeueTask.js';
import { resumeScheduleHandler } from './handlers/resumeSchedule.js';
import { retryTaskHandler } from './handlers/retryTask.js';
import { runsAuditHandler } from './handlers/runsAudit.js';
import { statusAuditHandler } from './handlers/statusAudit.js';
import { successRateTrendHandler } from './handlers/successRateTrend.js';
import { taskCountsHandler } from './handlers/taskCounts.js';
import { taskTypesHandler } from './handlers/taskTypes.js';
import { validateTokenHandler } from './handlers/validateToken.js';
import type { MonitoringContext } from './MonitoringContext.js';

/**
 * The handler of every operation of the route catalogue (`API_ROUTES`); the router mounts each
 * at the catalogue's method and path, behind the catalogue's authentication.
 */
export const API_HANDLERS: { readonly [Op in ApiOperation]: (ctx: MonitoringContext) => RequestHandler } = {
  'auth.login': loginHandler,
  'auth.magic': magicPostHandler,
  'auth.magicQuery': magicGetHandler,
  'auth.validate': validateTokenHandler,
  'config.get': getConfigHandler,
  'health.get': getHealthHandler,
  'tasks.list': listTasksHandler,
  'tasks.counts': taskCountsHandler,
  'tasks.get': getTaskHandler,
  'tasks.statusAudit': statusAuditHandler,
  'tasks.runsAudit': runsAuditHandler,
  'tasks.occurrences': occurrencesHandler,
  'tasks.executionLogs': executionLogsHandler,
  'dashboard.overview': dashboardOverviewHandler,
  'dashboard.recentActivity': recentActivityHandler,
  'queues.list': listQueuesHandler,
  'queues.tasks': listQueueTasksHandler,
  'statistics.successRateTrend': successRateTrendHandler,
  'statistics.taskTypes': taskTypesHandler,
  'statistics.executionTimes': executionTimesHandler,
  'management.requeue': requeueTaskHandler,
  'management.resume': resumeScheduleHandler,
  'management.cancel': cancelScheduleHandler,
  'management.retry': retryTaskHandler,
  'management.bulk': bulkActionHandler,
  'management.bulkStatus': bulkStatusHandler,
  'statistics.failureGroups': failureGroupsHandler,
  'audit.list': operatorAuditHandler,
};
