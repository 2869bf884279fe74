/**
 * Fuzzy matching for the Ctrl/Cmd+K switcher: every query character must appear in order;
 * consecutive runs and word starts score higher. Returns null when there is no match.
 */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.trim().toLowerCase();
  if (q === '') return 0;
  const t = text.toLowerCase();
  let score = 0;
  let ti = 0;
  let previous = -2;
  for (const ch of q) {
    if (ch === ' ') continue;
    const found = t.indexOf(ch, ti);
    if (found < 0) return null;
    let s = 1;
    if (found === previous + 1) s += 3;
    if (found === 0 || /[\s\-_./:]/.test(t[found - 1]!)) s += 2;
    score += s - Math.min(found - ti, 5) * 0.1;
    previous = found;
    ti = found + 1;
  }
  return score;
}

export interface Searchable {
  id: string;
  name: string;
  group?: string;
  baseUrl: string;
  favourite?: boolean;
}

/** Ranks environments for a query: best score first; an empty query lists favourites first. */
export function rankEnvironments<T extends Searchable>(items: readonly T[], query: string): T[] {
  const scored: Array<{ item: T; score: number; index: number }> = [];
  items.forEach((item, index) => {
    const candidates = [fuzzyScore(query, item.name), item.group ? fuzzyScore(query, item.group) : null, fuzzyScore(query, item.baseUrl)];
    const nameScore = candidates[0];
    const best = Math.max(...candidates.map((c, i) => (c === null ? -Infinity : i === 0 ? c + 0.5 : c)));
    if (best === -Infinity) return;
    scored.push({ item, score: best + (item.favourite ? 0.25 : 0) + (nameScore !== null ? 0 : -0.5), index });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.map((s) => s.item);
}
