import type { EnvironmentStatusView } from '../../../shared/environmentStatus.js';
import type { ManagementAction } from '../../../shared/proxiedOperations.js';
import { fuzzyScore, rankEnvironments } from '../fuzzyMatch.js';

/** One entry of the command palette. */
export type PaletteCommand =
  | { kind: 'environment'; id: string; label: string; environment: EnvironmentStatusView }
  | { kind: 'page'; id: string; label: string; path: string }
  | { kind: 'all'; id: string; label: string }
  | { kind: 'inbox'; id: string; label: string }
  | { kind: 'search'; id: string; label: string; text: string }
  | { kind: 'manage'; id: string; label: string; action: ManagementAction; taskId: string; environment: EnvironmentStatusView };

/** The dashboard pages the palette goes to, in the active environment. */
export const PALETTE_PAGES = [
  { label: 'Overview', path: '/' },
  { label: 'Tasks', path: '/tasks' },
  { label: 'Failed tasks', path: '/tasks?status=Failed' },
  { label: 'What is failing', path: '/failures' },
  { label: 'Queues', path: '/queues' },
  { label: 'Statistics', path: '/statistics' },
  { label: 'Audit', path: '/audit' },
  { label: 'Live feed', path: '/live' },
] as const;

/** The actions the palette runs on the selected task, with the verbs the dashboard's buttons use. */
export const PALETTE_ACTIONS = [
  { action: 'management.retry', verb: 'Retry task' },
  { action: 'management.requeue', verb: 'Requeue occurrence' },
  { action: 'management.cancel', verb: 'Cancel' },
] as const satisfies ReadonlyArray<{ action: ManagementAction; verb: string }>;

const TASK_ROUTE = /^\/tasks\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[?#]|$)/;

/** The task the selection is: the one whose page the active environment's dashboard shows. */
export function selectedTaskId(route: string): string | undefined {
  return TASK_ROUTE.exec(route)?.[1];
}

export interface PaletteContext {
  environments: readonly EnvironmentStatusView[];
  active: EnvironmentStatusView | undefined;
  /** The dashboard's route in the active environment. */
  route: string;
}

/**
 * The palette's entries for a query, best first: environments (as the switcher ranked them),
 * then pages, views and, when a task is selected and the session may manage it, its actions;
 * a non-empty query can always be searched for across environments.
 */
export function paletteCommands(context: PaletteContext, query: string): PaletteCommand[] {
  const q = query.trim();
  const environments: PaletteCommand[] = rankEnvironments(context.environments, q).map((e) => ({ kind: 'environment', id: `env:${e.id}`, label: e.name, environment: e }));
  const others: PaletteCommand[] = [];
  const active = context.active;
  if (active) for (const p of PALETTE_PAGES) others.push({ kind: 'page', id: `page:${p.path}`, label: `Go to ${p.label} (${active.name})`, path: p.path });
  others.push({ kind: 'all', id: 'all', label: 'All environments at a glance' }, { kind: 'inbox', id: 'inbox', label: 'Open the failure inbox' });
  const taskId = selectedTaskId(context.route);
  if (active && taskId && active.session.canManage && active.session.managementEnabled) {
    for (const a of PALETTE_ACTIONS) others.push({ kind: 'manage', id: `manage:${a.action}`, label: `${a.verb} ${taskId.slice(0, 8)} (${active.name})`, action: a.action, taskId, environment: active });
  }
  const ranked = others
    .map((c, index) => ({ c, index, score: fuzzyScore(q, c.label) }))
    .filter((x) => x.score !== null)
    .sort((a, b) => (q === '' ? a.index - b.index : b.score! - a.score! || a.index - b.index))
    .map((x) => x.c);
  const search: PaletteCommand[] = q ? [{ kind: 'search', id: 'search', label: `Search all environments for “${q}”`, text: q }] : [];
  return [...environments, ...ranked, ...search];
}
