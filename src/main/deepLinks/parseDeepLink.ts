import type { NotificationTarget } from '../../shared/notifications.js';

/** `svc-monitor://<environment>/tasks/<id>`: open a task of an environment. */
export interface TaskDeepLink {
  /** Environment id or name, as written in the link (decoded). */
  environment: string;
  taskId: string;
}

/** `svc-monitor://<environment>/<page>?<filters>`: open a (filtered) page of an environment. */
export interface PageDeepLink {
  environment: string;
  /** The dashboard route with its query, e.g. `/tasks?status=Failed`. */
  path: string;
}

/** `svc-monitor://<environment>/inbox?burst=<id>`: open the failure inbox at an environment (or one burst). */
export interface InboxDeepLink {
  environment: string;
  inbox: { burstId?: string };
}

export type DeepLink = TaskDeepLink | PageDeepLink | InboxDeepLink;

/** Pages a link may open (the dashboard's list pages). */
export const LINKABLE_PAGES = ['', 'tasks', 'queues', 'failures', 'statistics', 'live', 'audit'] as const;

export const DEEP_LINK_SCHEME = 'svc-monitor';
const MAX_LENGTH = 2048;
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SHAPE = /^svc-monitor:\/\/([^/?#]+)\/tasks\/([^/?#]+)\/?$/i;
const PAGE_SHAPE = /^svc-monitor:\/\/([^/?#]+)\/([a-z]*)\/?(?:\?([^#]*))?$/i;

export class DeepLinkError extends Error {
  override name = 'DeepLinkError';
}

/** Parses and validates a deep link; throws DeepLinkError naming what is wrong. */
export function parseDeepLink(url: string): DeepLink {
  if (typeof url !== 'string' || url.length === 0) throw new DeepLinkError('deep link: empty');
  if (url.length > MAX_LENGTH) throw new DeepLinkError(`deep link: longer than ${MAX_LENGTH} characters`);
  const text = url.trim();
  const match = SHAPE.exec(text);
  if (!match) {
    const page = PAGE_SHAPE.exec(text);
    const name = page?.[2]?.toLowerCase();
    if (page && name === 'inbox') {
      const burstId = new URLSearchParams(page[3] ?? '').get('burst');
      if (burstId !== null && !/^[A-Za-z0-9_-]{1,40}$/.test(burstId)) throw new DeepLinkError('deep link: invalid burst id');
      return { environment: decodeEnvironment(page[1]!), inbox: burstId ? { burstId } : {} };
    }
    if (!page || !(LINKABLE_PAGES as readonly string[]).includes(name!)) {
      throw new DeepLinkError('deep link: expected svc-monitor://<environment>/tasks/<task id> or svc-monitor://<environment>/<page>?<filters>');
    }
    const environment = decodeEnvironment(page[1]!);
    // Re-serialised: only name=value pairs reach the dashboard's router.
    const query = new URLSearchParams(page[3] ?? '').toString();
    return { environment, path: `/${name}${query ? `?${query}` : ''}` };
  }
  const environment = decodeEnvironment(match[1]!);
  const taskId = match[2]!;
  if (!GUID.test(taskId)) throw new DeepLinkError('deep link: the task id must be a GUID');
  return { environment, taskId };
}

function decodeEnvironment(raw: string): string {
  let environment: string;
  try {
    environment = decodeURIComponent(raw);
  } catch {
    throw new DeepLinkError('deep link: the environment is not valid percent-encoding');
  }
  if (environment.trim() === '' || /[\u0000-\u001f]/.test(environment)) throw new DeepLinkError('deep link: invalid environment name');
  return environment;
}

/** Builds the link of a task (copy link action). */
export function formatDeepLink(environmentName: string, taskId: string): string {
  return `${DEEP_LINK_SCHEME}://${encodeURIComponent(environmentName)}/tasks/${taskId}`;
}

/**
 * The link that opens `target` (a Windows notification opens it when clicked, even from the
 * Action Center, where the app's click handler is gone): parseDeepLink reads it back.
 */
export function formatTargetLink(environmentName: string, target: NotificationTarget): string {
  const base = `${DEEP_LINK_SCHEME}://${encodeURIComponent(environmentName)}`;
  switch (target.kind) {
    case 'task':
      return formatDeepLink(environmentName, target.taskId);
    case 'route':
      return `${base}${target.path.startsWith('/') ? target.path : `/${target.path}`}`;
    case 'inbox':
      return `${base}/inbox${target.burstId ? `?burst=${encodeURIComponent(target.burstId)}` : ''}`;
    case 'environment':
      return `${base}/`;
  }
}

/** The deep link among command-line arguments (second instance on Windows/Linux). */
export function findDeepLinkArgument(argv: readonly string[]): string | undefined {
  return argv.find((a) => a.toLowerCase().startsWith(`${DEEP_LINK_SCHEME}://`));
}
