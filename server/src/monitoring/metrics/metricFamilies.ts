/** Bucket bounds (seconds) of the attempt, task and wait histograms: 5 ms to 1 hour. */
export const TASK_SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Bucket bounds (seconds) of the store-commit histogram: 0.5 ms to 5 s. */
export const COMMIT_SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The prefix of every family the monitoring exports (the Node process metrics included). */
export const METRICS_PREFIX = 'svc_';

/** The outcome label of `svc_tasks_finished_total`. */
export type FinishOutcome = 'completed' | 'failed' | 'cancelled' | 'timed_out' | 'service_stopped' | 'abandoned';

/** Every family the monitoring exports besides Node's process metrics (the Grafana dashboard's test reads this list). */
export const METRIC_FAMILIES = [
  'svc_build_info',
  'svc_tasks_finished_total',
  'svc_task_attempts_total',
  'svc_task_attempt_seconds',
  'svc_task_duration_seconds',
  'svc_task_wait_seconds',
  'svc_tasks',
  'svc_queue_oldest_waiting_seconds',
  'svc_schedules',
  'svc_schedule_missed_slots_total',
  'svc_engine_health',
  'svc_engine_unwritten_changes',
  'svc_engine_commit_seconds',
  'svc_engine_clock_offset_seconds',
  'svc_hub_connections',
  'svc_hub_messages_sent_total',
  'svc_hub_rejections_total',
  'svc_hub_slow_client_closes_total',
  'svc_alert_deliveries_total',
  'svc_http_requests_total',
] as const;
