import { describe, expect, it } from 'vitest';
import { resolveServeSettings } from '../../../server/src/cli/serveSettings.js';
import { resolveOptions } from '../../../server/src/monitoring/options.js';

const RULES = [{ on: 'TaskFailed', types: ['Billing.Charge'], webhook: { url: 'https://hooks.example.com/x', preset: 'slack' } }];
const quiet = () => undefined;

describe('the alerts option from the CLI and the environment', () => {
  it('takes the rules as JSON from SVC_MONITOR_ALERTS and from --alerts (the flag winning)', () => {
    const fromEnv = resolveServeSettings([], { SVC_MONITOR_ALERTS: JSON.stringify(RULES) }, { port: 0 }, {}, quiet);
    expect(fromEnv.options.alerts).toEqual(RULES);
    const resolved = resolveOptions({ ...fromEnv.options, logger: { info: quiet, warn: quiet } });
    expect(resolved.alerts[0]).toMatchObject({ on: 'TaskFailed', webhook: { url: 'https://hooks.example.com/x', preset: 'slack' } });
    const other = [{ on: 'EngineDegraded', webhook: { url: 'https://hooks.example.com/y' } }];
    const fromFlag = resolveServeSettings(['--alerts', JSON.stringify(other)], { SVC_MONITOR_ALERTS: JSON.stringify(RULES) }, { port: 0 }, {}, quiet);
    expect(fromFlag.options.alerts).toEqual(other);
  });

  it('warns that --alerts on the command line is visible to every user (its webhooks hold secrets)', () => {
    const warned: string[] = [];
    resolveServeSettings(['--alerts', JSON.stringify(RULES)], {}, { port: 0 }, {}, (m) => warned.push(m));
    expect(warned).toEqual([expect.stringMatching(/--alerts on the command line is visible.*SVC_MONITOR_ALERTS/)]);
    warned.length = 0;
    resolveServeSettings([], { SVC_MONITOR_ALERTS: JSON.stringify(RULES) }, { port: 0 }, {}, (m) => warned.push(m));
    expect(warned).toEqual([]);
  });

  it('refuses text that is not JSON, naming the variable', () => {
    expect(() => resolveServeSettings([], { SVC_MONITOR_ALERTS: '[{on: TaskFailed}' }, { port: 0 }, {}, quiet)).toThrow(/SVC_MONITOR_ALERTS.*alerts.*must be JSON/);
  });
});
