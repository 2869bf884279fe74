import { stringify } from 'csv-stringify/sync';
import { inboxFingerprint, type InboxItem } from '../../shared/inbox.js';

/** The columns of the inbox export, in order (the header row). */
export const INBOX_CSV_COLUMNS = [
  'environment',
  'production',
  'taskId',
  'taskType',
  'queue',
  'kind',
  'eventDateUtc',
  'message',
  'fingerprint',
  'read',
  'acknowledged',
  'whileAway',
  'link',
] as const;

/**
 * The inbox as CSV: RFC 4180 (CRLF between records, fields with a comma, quote or line break
 * quoted, quotes doubled), one row per item, newest first. A cell that a spreadsheet would
 * run as a formula (starting with =, +, -, @, tab or carriage return) starts with an
 * apostrophe instead: error texts come from the environments' tasks, not from the user.
 */
export function inboxCsv(items: readonly InboxItem[], linkFor: (item: InboxItem) => string | undefined): string {
  const rows = items.map((i) => [
    i.environmentName,
    i.isProduction ? 'yes' : 'no',
    i.taskId,
    i.taskType,
    i.queueName ?? '',
    i.kind,
    i.eventDateUtc,
    i.message,
    inboxFingerprint(i),
    i.read ? 'yes' : 'no',
    i.acknowledged ? 'yes' : 'no',
    i.whileAway ? 'yes' : 'no',
    linkFor(i) ?? '',
  ]);
  return stringify([[...INBOX_CSV_COLUMNS], ...rows], { record_delimiter: 'windows', escape_formulas: true });
}
