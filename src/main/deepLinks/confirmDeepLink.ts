import type { NotificationTarget } from '../../shared/notifications.js';

/** What the confirmation names: the environment a link switches to. */
export interface LinkedEnvironment {
  name: string;
  baseUrl: string;
  isProduction: boolean;
}

/** A message box (Electron's showMessageBox options): Open or Cancel, Cancel the default. */
export interface DeepLinkPrompt {
  type: 'question';
  title: string;
  message: string;
  detail: string;
  buttons: [string, string];
  defaultId: 1;
  cancelId: 1;
}

/** The button that opens the link. */
const OPEN = 0;

/**
 * Any web page, mail or chat can hand the system an `svc-monitor:` link, and the system
 * starts the console with it: a link switches the window to another environment (and a page
 * there) only once the user has read where it goes and chosen Open. The question names the
 * environment (flagged when production), its address and what opens; Cancel is the default.
 */
export function deepLinkPrompt(environment: LinkedEnvironment, target: NotificationTarget): DeepLinkPrompt {
  const where = environment.isProduction ? `${environment.name} (PRODUCTION)` : environment.name;
  return {
    type: 'question',
    title: 'Open a link',
    message: `Open ${describeTarget(target)} in ${where}?`,
    detail: `A link asks the console to switch to the environment "${environment.name}" at ${environment.baseUrl}. Open it only if you followed it yourself.`,
    buttons: ['Open', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
  };
}

/** Whether the answer to the prompt (the index of the button chosen) opens the link. */
export function deepLinkConfirmed(response: number): boolean {
  return response === OPEN;
}

function describeTarget(target: NotificationTarget): string {
  switch (target.kind) {
    case 'task':
      return `task ${target.taskId}`;
    case 'inbox':
      return target.burstId ? 'a group of failures in the inbox' : 'the failure inbox';
    case 'route':
      return `the page ${target.path}`;
    case 'environment':
      return 'the overview';
  }
}
