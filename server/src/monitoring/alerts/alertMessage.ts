import type { OperatorAuditEntry } from '../../contracts/index.js';
import type { AlertKind, WebhookPreset } from './alertRules.js';

/** The JSON document a firing or resolved rule posts (the `json` preset's body). */
export interface AlertMessage {
  rule: string;
  on: AlertKind;
  /** `recorded`: an OperatorAction rule's message (a record, nothing that fires or resolves). */
  state: 'firing' | 'resolved' | 'recorded';
  /** What the rule saw: matches in the window (TaskFailed), the backlog, halted schedules (read models), 1 (EngineDegraded). */
  count: number;
  /** A line for people. */
  summary: string;
  /** The first matching task ids (TaskFailed; at most ten). */
  taskIds: string[];
  /** Links into the dashboard. */
  links: { dashboard: string; tasks: string[] };
  atUtc: string;
  /** OperatorAction: the record. */
  operatorAction?: OperatorAuditEntry;
}

/** The body to post for `preset`: the document itself, or a Slack or Microsoft Teams incoming-webhook message. */
export function webhookBody(message: AlertMessage, preset: WebhookPreset): unknown {
  if (preset === 'json') return message;
  const icon = message.state === 'firing' ? '🔴' : message.state === 'recorded' ? '👤' : '✅';
  const lines = [`${icon} ${message.summary}`, `Dashboard: ${message.links.dashboard}`, ...message.links.tasks.map((t) => `Task: ${t}`)];
  if (preset === 'slack') return { text: lines.join('\n') };
  // Teams workflows ("Post to a channel when a webhook request is received") take an Adaptive Card.
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: lines.map((text, i) => ({ type: 'TextBlock', text, wrap: true, ...(i === 0 ? { weight: 'Bolder' } : {}) })),
        },
      },
    ],
  };
}
