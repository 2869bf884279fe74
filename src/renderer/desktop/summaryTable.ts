import type { EnvironmentHealth, EnvironmentSummaryRow } from '../../shared/environmentsSummary.js';

/** The columns of the all-environments table, each sortable. */
export const SUMMARY_COLUMNS = [
  { key: 'name', label: 'Environment' },
  { key: 'health', label: 'Health' },
  { key: 'live', label: 'Live' },
  { key: 'failedLastHour', label: 'Failed (1 h)' },
  { key: 'failedLastDay', label: 'Failed (24 h)' },
  { key: 'oldestWaitingMs', label: 'Oldest waiting' },
  { key: 'haltedSchedules', label: 'Halted schedules' },
] as const;

export type SummaryColumn = (typeof SUMMARY_COLUMNS)[number]['key'];
export interface SummarySort {
  key: SummaryColumn;
  descending: boolean;
}

export const HEALTH_LABEL: Record<EnvironmentHealth, string> = { down: 'Down', login: 'Needs login', failing: 'Failing', ok: 'Healthy' };
/** Worst first when sorted descending. */
const HEALTH_RANK: Record<EnvironmentHealth, number> = { ok: 0, login: 1, failing: 2, down: 3 };

/** The first sort: worst health first, then by name. */
export const DEFAULT_SORT: SummarySort = { key: 'health', descending: true };

function valueOf(row: EnvironmentSummaryRow, key: SummaryColumn): string | number | undefined {
  switch (key) {
    case 'name':
    case 'live':
      return row[key].toLowerCase();
    case 'health':
      return HEALTH_RANK[row.health];
    case 'oldestWaitingMs':
      return row.oldestWaitingMs === null ? 0 : row.oldestWaitingMs;
    default:
      return row[key];
  }
}

/** The rows in the chosen order; rows without the figure (down, needs login) go last either way; ties by name. */
export function sortSummaryRows(rows: readonly EnvironmentSummaryRow[], sort: SummarySort): EnvironmentSummaryRow[] {
  const sign = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const va = valueOf(a, sort.key);
    const vb = valueOf(b, sort.key);
    if (va === undefined || vb === undefined) {
      if (va !== vb) return va === undefined ? 1 : -1;
    } else if (va !== vb) return (va < vb ? -1 : 1) * sign;
    return a.name.localeCompare(b.name);
  });
}

/** A click on a column's sort button: the same column flips its order; another starts at its natural order (figures largest first). */
export function nextSort(current: SummarySort, key: SummaryColumn): SummarySort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key !== 'name' && key !== 'live' };
}

/** A wait as people say it: "45 s", "7 min", "3 h 5 min", "2 d 4 h". */
export function formatWait(ms: number | null | undefined): string {
  if (ms === undefined) return '—';
  if (ms === null) return 'none';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}
