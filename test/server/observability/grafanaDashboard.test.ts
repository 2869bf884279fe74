import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRIC_FAMILIES } from '../../../server/src/monitoring/metrics/metricFamilies.js';

const DASHBOARD = new URL('../../../docs/grafana/svc-monitor-dashboard.json', import.meta.url);
/** What a histogram family adds to its name on its samples. */
const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum'];
/** PromQL words that are not series names. */
const PROMQL_WORDS = new Set(['sum', 'max', 'min', 'avg', 'by', 'without', 'rate', 'irate', 'increase', 'histogram_quantile', 'le', 'on', 'ignoring', 'and', 'or', 'unless']);

function seriesNames(expr: string): string[] {
  // Strip label matchers and range selectors, then take the identifiers.
  const bare = expr.replace(/\{[^}]*\}/g, ' ').replace(/\[[^\]]*\]/g, ' ');
  return [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((w) => !PROMQL_WORDS.has(w));
}

describe('the Grafana dashboard in docs/grafana', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Array<{ title: string; targets: Array<{ expr: string }> }> };
  const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr })));

  it('queries only families the monitoring exports (its own, or Node process metrics under its prefix)', () => {
    expect(exprs.length).toBeGreaterThan(0);
    const exported = new Set<string>(METRIC_FAMILIES.flatMap((f) => [f, ...HISTOGRAM_SUFFIXES.map((s) => `${f}${s}`)]));
    for (const { title, expr } of exprs) {
      // `by (…)` label lists are not series.
      const names = seriesNames(expr.replace(/\b(by|without)\s*\([^)]*\)/g, ' '));
      expect(names.length, title).toBeGreaterThan(0);
      for (const name of names) expect(exported.has(name) || name.startsWith('svc_process_'), `${title}: ${name}`).toBe(true);
    }
  });

  it('charts every exported family', () => {
    const all = exprs.map((e) => e.expr).join('\n');
    for (const family of METRIC_FAMILIES) expect(all, family).toMatch(new RegExp(`\\b${family}(_bucket|_count|_sum)?\\b`));
  });
});
