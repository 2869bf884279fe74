import type { DashboardOverview, TaskDetail, TaskPage, TaskSummary } from '../../server/src/contracts/task.js';
import type { FakePlatform } from './fakePlatform.js';

export const FAILED_ID = 'f0000000-0000-4000-8000-00000000000f';
export const SCHEDULE_ID = 'c0000000-0000-4000-8000-00000000000c';

export const OVERVIEW: DashboardOverview = {
  totalTasksToday: 1234,
  totalTasksWeek: 5678,
  successRate: 93.25,
  failedCount: 17,
  avgExecutionTimeMs: 42.5,
  statusDistribution: { Completed: 1100, Failed: 17, Queued: 3 },
  tasksOverTime: [{ timestamp: '2026-11-22T10:00:00Z', completed: 10, failed: 1, total: 11 }],
  queueSummaries: [{ queueName: 'default', pendingCount: 3, inProgressCount: 1, completedCount: 1100, failedCount: 17, throttledCount: 2 }],
  throttledTasks: 2,
  catchUpBacklog: { pending: 4, active: 1, failed: 0, skipped: 2, completed: 30, lagSeconds: 90, haltedSchedules: 1, oldestPendingSlotUtc: '2026-11-22T09:00:00Z' },
};

export function summary(id: string, extra: Partial<TaskSummary> = {}): TaskSummary {
  return { id, type: 'SendInvoice', status: 'Completed', queueName: 'default', createdAtUtc: '2026-11-22T10:00:00Z', isRecurring: false, ...extra };
}

export function page(items: TaskSummary[], p = 1, pageSize = 20, total = items.length): TaskPage {
  return { items, totalCount: total, page: p, pageSize, totalPages: Math.max(1, Math.ceil(total / pageSize)) };
}

export const FAILED_DETAIL: TaskDetail = {
  ...summary(FAILED_ID, { status: 'Failed', type: 'Demo.Billing.AlwaysFails', lastExecutionUtc: '2026-11-22T10:00:05Z', executionTimeMs: 0 }),
  handler: 'Demo.Billing.AlwaysFailsHandler',
  request: '{"invoiceId":7,"lines":[1,2]}',
  statusAudits: [],
  runsAudits: [],
  statusAuditsTotalCount: 3,
  runsAuditsTotalCount: 0,
  executionLogs: [],
  executionLogsTotalCount: 2,
  exception: 'Error: card declined\n    at charge (billing.ts:12)',
  auditLevel: 'Full',
};

export const SCHEDULE_DETAIL: TaskDetail = {
  ...summary(SCHEDULE_ID, { status: 'Pending', type: 'Demo.Reports.Hourly', isRecurring: true, occurrenceMode: 'Durable', misfirePolicy: 'ReplayAll', timeZoneId: 'Europe/Rome', scheduleVersion: 2 }),
  handler: 'Demo.Reports.HourlyHandler',
  request: '{}',
  taskKey: 'hourly-report',
  statusAudits: [],
  runsAudits: [],
  statusAuditsTotalCount: 1,
  runsAuditsTotalCount: 0,
  executionLogs: [],
  executionLogsTotalCount: 0,
  halt: { atUtc: '2026-11-22T08:00:00Z', reason: 'OverflowCapExceeded', detectedAtLeast: 250, isExact: true, cursorUtc: '2026-11-12T08:00:00Z', scheduleVersion: 2 },
  auditLevel: 'Full',
};

/** Answers every read operation with the fixtures above. */
export function serveFixtures(platform: FakePlatform): void {
  platform.handle('dashboard.overview', () => OVERVIEW);
  platform.handle('dashboard.recentActivity', () => [
    { taskId: FAILED_ID, taskType: 'Demo.Billing.AlwaysFails', status: 'Failed', timestamp: '2026-11-22T10:00:05Z', message: 'card declined' },
  ]);
  platform.handle('tasks.list', (q) => {
    if (q.isRecurring) return page([summary(SCHEDULE_ID, { isRecurring: true, occurrenceMode: 'Durable', type: 'Hourly', status: 'Pending' })]);
    const items = [summary(FAILED_ID, { status: 'Failed', type: 'AlwaysFails' }), summary('a0000000-0000-4000-8000-000000000001')];
    const filtered = q.statuses ? items.filter((t) => q.statuses?.includes(t.status)) : items;
    return page(filtered, q.page ?? 1, q.pageSize ?? 20, q.statuses ? filtered.length : 45);
  });
  platform.handle('queues.list', () => [
    { queueName: 'default', totalTasks: 10, queuedTasks: 1, inProgressTasks: 1, completedTasks: 7, failedTasks: 1, cancelledTasks: 0, successRate: 87.5 },
  ]);
  platform.handle('tasks.get', (p) => (p.id === SCHEDULE_ID ? SCHEDULE_DETAIL : FAILED_DETAIL));
  platform.handle('tasks.statusAudit', (p) => ({
    audits: [
      { id: 3, queuedTaskId: p.id, updatedAtUtc: '2026-11-22T10:00:05Z', newStatus: 'Failed', exception: 'Error: card declined' },
      { id: 2, queuedTaskId: p.id, updatedAtUtc: '2026-11-22T10:00:01Z', newStatus: 'InProgress' },
      { id: 1, queuedTaskId: p.id, updatedAtUtc: '2026-11-22T10:00:00Z', newStatus: 'Queued' },
    ],
    totalCount: 3,
    skip: p.skip ?? 0,
    take: p.take ?? 100,
  }));
  platform.handle('tasks.runsAudit', (p) => ({ audits: [], totalCount: 0, skip: p.skip ?? 0, take: p.take ?? 100 }));
  platform.handle('tasks.executionLogs', (p) => ({
    logs:
      p.id === FAILED_ID
        ? [
            { id: 1, taskId: p.id, timestampUtc: '2026-11-22T10:00:01Z', level: 'Information', message: 'charging card', sequenceNumber: 1 },
            { id: 2, taskId: p.id, timestampUtc: '2026-11-22T10:00:04Z', level: 'Error', message: 'charge failed', exceptionDetails: 'Error: card declined\n at x', sequenceNumber: 2 },
          ]
        : [],
    totalCount: p.id === FAILED_ID ? 2 : 0,
    skip: p.skip ?? 0,
    take: p.take ?? 100,
  }));
  platform.handle('tasks.occurrences', (p) => ({
    occurrences: [
      {
        id: 'd0000000-0000-4000-8000-000000000001',
        parentTaskId: p.id,
        status: p.nonTerminalOnly ? 'Pending' : 'Completed',
        occurrence: { slotUtc: '2026-11-22T09:00:00Z', runNumber: 12, misfireKind: 'CatchUp' },
        createdAtUtc: '2026-11-22T09:00:00Z',
        scheduleVersion: 2,
      },
    ],
    totalCount: 45,
    skip: p.skip ?? 0,
    take: p.take ?? 100,
  }));
  platform.handle('statistics.successRateTrend', (p) => ({ period: p.period ?? 'Last7Days', dataPoints: [{ timestamp: '2026-11-22T00:00:00Z', successRate: 90, totalTasks: 10, successfulTasks: 9, failedTasks: 1 }] }));
  platform.handle('statistics.taskTypes', () => ({ 'Demo.Billing.SendInvoice': 7, 'Demo.Billing.AlwaysFails': 3 }));
  platform.handle('statistics.executionTimes', () => [
    { taskType: 'Demo.Billing.SendInvoice', averageExecutionTime: 12, minExecutionTime: 1, maxExecutionTime: 40, taskCount: 7 },
    { taskType: 'Demo.Billing.Slow', averageExecutionTime: 900, minExecutionTime: 800, maxExecutionTime: 1000, taskCount: 3 },
  ]);
}
