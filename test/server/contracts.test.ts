import { describe, expect, it } from 'vitest';
import { SEVERITY_BY_KIND, TASK_STATUSES } from '../../server/src/contracts/index.js';

describe('contracts', () => {
  it('lists the eight statuses of spec §3', () => {
    expect([...TASK_STATUSES].sort()).toEqual(
      ['Cancelled', 'Completed', 'Failed', 'InProgress', 'Pending', 'Queued', 'ServiceStopped', 'WaitingQueue'],
    );
  });
  it('maps severities per DESIGN §5.3', () => {
    expect(SEVERITY_BY_KIND.Failed).toBe('Error');
    expect(SEVERITY_BY_KIND.Timeout).toBe('Warning');
    expect(SEVERITY_BY_KIND.Started).toBe('Information');
  });
});
