import type { EnvironmentLiveStatus } from './environmentStatus.js';

/**
 * One environment's health on the all-environments page and in the tray:
 * `down` its API did not answer (unreachable, an error, or not within the time limit);
 * `login` nothing can be read until someone logs in; `failing` tasks failed in the last hour or a
 * schedule is halted; `ok` otherwise.
 */
export type EnvironmentHealth = 'ok' | 'failing' | 'down' | 'login';

/** One row of the all-environments summary: small on purpose (fifty of them cross IPC on every refresh). */
export interface EnvironmentSummaryRow {
  id: string;
  name: string;
  isProduction: boolean;
  health: EnvironmentHealth;
  live: EnvironmentLiveStatus;
  /** Why the figures are missing (`down` and `login` rows). */
  error?: string;
  /** Tasks whose last run failed within the last hour / 24 hours, by the server's clock. */
  failedLastHour?: number;
  failedLastDay?: number;
  /** The counts stop at one page of failures: the true figure is at least this. */
  failedAtLeast?: boolean;
  /** How long the task longest in line has waited since it became due (ms); null when nothing waits. */
  oldestWaitingMs?: number | null;
  haltedSchedules?: number;
  /** How long this environment took to answer (ms). */
  tookMs: number;
}

export interface EnvironmentsSummary {
  /** When the summary was gathered (the desktop's clock). */
  at: string;
  rows: EnvironmentSummaryRow[];
}

/** The tray's header line: how many environments fail and how many are down (undefined when all is well). */
export function summaryHeadline(summary: Pick<EnvironmentsSummary, 'rows'> | undefined): string | undefined {
  if (!summary || summary.rows.length === 0) return undefined;
  const failing = summary.rows.filter((r) => r.health === 'failing').length;
  const down = summary.rows.filter((r) => r.health === 'down').length;
  const login = summary.rows.filter((r) => r.health === 'login').length;
  const parts = [failing > 0 ? `${failing} failing` : '', down > 0 ? `${down} down` : '', login > 0 ? `${login} need a login` : ''].filter(Boolean);
  return parts.length === 0 ? `All ${summary.rows.length} environments healthy` : `${parts.join(' · ')} of ${summary.rows.length} environments`;
}
