/** `svc-monitor://<environment>/tasks/<id>`: open a task of an environment. */
export interface TaskDeepLink {
  /** Environment id or name, as written in the link (decoded). */
  environment: string;
  taskId: string;
}

export const DEEP_LINK_SCHEME = 'svc-monitor';
const MAX_LENGTH = 2048;
const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SHAPE = /^svc-monitor:\/\/([^/?#]+)\/tasks\/([^/?#]+)\/?$/i;

export class DeepLinkError extends Error {
  override name = 'DeepLinkError';
}

/** Parses and validates a deep link; throws DeepLinkError naming what is wrong. */
export function parseDeepLink(url: string): TaskDeepLink {
  if (typeof url !== 'string' || url.length === 0) throw new DeepLinkError('deep link: empty');
  if (url.length > MAX_LENGTH) throw new DeepLinkError(`deep link: longer than ${MAX_LENGTH} characters`);
  const match = SHAPE.exec(url.trim());
  if (!match) throw new DeepLinkError('deep link: expected svc-monitor://<environment>/tasks/<task id>');
  let environment: string;
  try {
    environment = decodeURIComponent(match[1]!);
  } catch {
    throw new DeepLinkError('deep link: the environment is not valid percent-encoding');
  }
  if (environment.trim() === '' || /[\u0000-\u001f]/.test(environment)) throw new DeepLinkError('deep link: invalid environment name');
  const taskId = match[2]!;
  if (!GUID.test(taskId)) throw new DeepLinkError('deep link: the task id must be a GUID');
  return { environment, taskId };
}

/** Builds the link of a task (copy link action). */
export function formatDeepLink(environmentName: string, taskId: string): string {
  return `${DEEP_LINK_SCHEME}://${encodeURIComponent(environmentName)}/tasks/${taskId}`;
}

/** The deep link among command-line arguments (second instance on Windows/Linux). */
export function findDeepLinkArgument(argv: readonly string[]): string | undefined {
  return argv.find((a) => a.toLowerCase().startsWith(`${DEEP_LINK_SCHEME}://`));
}
