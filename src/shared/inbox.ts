/** One failure received from an environment's hub (or found by a back-fill). */
export interface InboxItem {
  id: string;
  environmentId: string;
  environmentName: string;
  isProduction: boolean;
  taskId: string;
  taskType: string;
  kind: 'Failed' | 'Timeout';
  message: string;
  exception?: string;
  queueName?: string;
  eventDateUtc: string;
  /** The notification burst it was reported in. */
  burstId: string;
  read: boolean;
  /** Found by the back-fill after a reconnect, a wake or a restart, not received live. */
  whileAway?: boolean;
}

/** Which items a list or a mark-as-read concerns; every given field must match. */
export interface InboxFilter {
  environmentId?: string;
  burstId?: string;
  unreadOnly?: boolean;
}

/** Marks items read: the listed ids, or every item of an environment or a burst. */
export interface InboxMarkRead {
  ids?: string[];
  environmentId?: string;
  burstId?: string;
}
