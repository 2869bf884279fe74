import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { METRIC_FAMILIES } from '../../../server/src/monitoring/metrics/metricFamilies.js';

// The alerting rules in deploy/prometheus as Prometheus loads them: promtool checks the file and
// runs its unit tests (svc-monitor-rules.test.yml: each rule fires on its series after its `for`).

const DIR = fileURLToPath(new URL('../../../deploy/prometheus/', import.meta.url));
const RULES = 'svc-monitor-rules.yml';
const ANCHORS = ['oldestwaithigh', 'failureratiohigh', 'enginedegraded', 'schedulehalted', 'unwrittenchanges', 'targetdown'];

const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: DIR, encoding: 'utf8' });

describe('deploy/prometheus/svc-monitor-rules.yml', () => {
  it('passes promtool check rules and promtool test rules', () => {
    expect(promtool('check', 'rules', RULES)).toMatch(/SUCCESS: 6 rules found/);
    expect(promtool('test', 'rules', 'svc-monitor-rules.test.yml')).toMatch(/SUCCESS/);
  });

  it('links each rule to its runbook anchor in docs/operations.md and queries only exported families', () => {
    const text = readFileSync(`${DIR}${RULES}`, 'utf8');
    const links = [...text.matchAll(/runbook_url: (\S+)/g)].map((m) => m[1]!);
    expect(links).toEqual(ANCHORS.map((a) => `https://svc-monitor.dev/docs/operations.md#${a}`));
    const exported = new Set<string>([...METRIC_FAMILIES, 'up']);
    const names = [...text.matchAll(/\b(svc_[a-z_]+|up)(?=\{|\[|\)|\s)/g)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(6);
    for (const name of names) expect(exported.has(name), name).toBe(true);
  });
});
