import express, { Router } from 'express';
import { requireBearer } from './auth/bearer.js';
import { createLoginRateLimiter } from './auth/loginRateLimiter.js';
import { bulkActionHandler } from './handlers/bulkAction.js';
import { bulkStatusHandler } from './handlers/bulkStatus.js';
import { cancelScheduleHandler } from './handlers/cancelSchedule.js';
import { dashboardOverviewHandler } from './handlers/dashboardOverview.js';
import { executionLogsHandler } from './handlers/executionLogs.js';
import { executionTimesHandler } from './handlers/executionTimes.js';
import { failureGroupsHandler } from './handlers/failureGroups.js';
import { getConfigHandler } from './handlers/getConfig.js';
import { getTaskHandler } from './handlers/getTask.js';
import { listQueueTasksHandler } from './handlers/listQueueTasks.js';
import { listQueuesHandler } from './handlers/listQueues.js';
import { listTasksHandler } from './handlers/listTasks.js';
import { loginHandler } from './handlers/login.js';
import { magicGetHandler, magicPostHandler } from './handlers/magicLink.js';
import { occurrencesHandler } from './handlers/occurrences.js';
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
import { problemErrorHandler } from './http/errorHandler.js';
import { sendProblem } from './http/problem.js';
import { managementAuthorizationGate } from './management/managementGate.js';
import type { MonitoringContext } from './MonitoringContext.js';

/** Everything under /svc-monitoring/api (spec §4). */
export function createApiRouter(ctx: MonitoringContext): { router: Router; close(): void } {
  const router = Router();
  const limiter = createLoginRateLimiter(ctx.options.loginRateLimit, ctx.clients);
  const auth = requireBearer(ctx.tokens, ctx.options.enableAuthentication);

  router.use(express.json({ limit: '64kb', strict: false }));

  router.post('/auth/login', limiter.middleware, loginHandler(ctx));
  router.post('/auth/magic', limiter.middleware, magicPostHandler(ctx));
  router.get('/auth/magic', limiter.middleware, magicGetHandler(ctx));
  router.post('/auth/validate', validateTokenHandler(ctx));
  router.get('/config', getConfigHandler(ctx));

  router.get('/tasks', auth, listTasksHandler(ctx));
  router.get('/tasks/counts', auth, taskCountsHandler(ctx));
  router.get('/tasks/:id', auth, getTaskHandler(ctx));
  router.get('/tasks/:id/status-audit', auth, statusAuditHandler(ctx));
  router.get('/tasks/:id/runs-audit', auth, runsAuditHandler(ctx));
  router.get('/tasks/:id/occurrences', auth, occurrencesHandler(ctx));
  router.get('/tasks/:id/execution-logs', auth, executionLogsHandler(ctx));
  router.get('/dashboard/overview', auth, dashboardOverviewHandler(ctx));
  router.get('/dashboard/recent-activity', auth, recentActivityHandler(ctx));
  router.get('/queues', auth, listQueuesHandler(ctx));
  router.get('/queues/:name/tasks', auth, listQueueTasksHandler(ctx));
  router.get('/statistics/success-rate-trend', auth, successRateTrendHandler(ctx));
  router.get('/statistics/task-types', auth, taskTypesHandler(ctx));
  router.get('/statistics/execution-times', auth, executionTimesHandler(ctx));
  router.get('/statistics/failure-groups', auth, failureGroupsHandler(ctx));

  const management = Router();
  management.use(managementAuthorizationGate(ctx));
  management.post('/tasks/:id/requeue', requeueTaskHandler(ctx));
  management.post('/tasks/:id/resume', resumeScheduleHandler(ctx));
  management.post('/tasks/:id/cancel', cancelScheduleHandler(ctx));
  management.post('/tasks/:id/retry', retryTaskHandler(ctx));
  management.post('/bulk/:action', bulkActionHandler(ctx));
  management.get('/bulk/:operationId', bulkStatusHandler(ctx));
  router.use('/management', management);

  router.use((req, res) => sendProblem(res, 404, `No API endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`));
  router.use(problemErrorHandler((m) => ctx.options.logger.warn(m)));
  return { router, close: () => limiter.close() };
}
