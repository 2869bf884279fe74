import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEVERITY_BY_KIND, TASK_STATUSES } from '../../server/src/contracts/index.js';

describe('contracts', () => {
  it('lists the eight task statuses', () => {
    expect([...TASK_STATUSES].sort()).toEqual(
      ['Cancelled', 'Completed', 'Failed', 'InProgress', 'Pending', 'Queued', 'ServiceStopped', 'WaitingQueue'],
    );
  });
  it('maps event kinds to severities', () => {
    expect(SEVERITY_BY_KIND.Failed).toBe('Error');
    expect(SEVERITY_BY_KIND.Timeout).toBe('Warning');
    expect(SEVERITY_BY_KIND.Started).toBe('Information');
  });
  it('import nothing outside the contracts (the renderer and desktop main load them at run time)', () => {
    const dir = join(import.meta.dirname, '../../server/src/contracts');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const specifiers = [...readFileSync(join(dir, file), 'utf8').matchAll(/^\s*(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((m) => m[1]);
      expect(specifiers.filter((s) => !/^\.\/[A-Za-z]+\.js$/.test(s!)), file).toEqual([]);
    }
  });
});
