import { describe, expect, it } from 'vitest';
import { OperatorAuditLog } from '../../../server/src/monitoring/audit/OperatorAuditLog.js';
import { ClientAddressResolver } from '../../../server/src/monitoring/network/clientAddress.js';
import type { OperatorAuditRecord, OperatorAuditStore } from '../../../server/src/storage/OperatorAuditStore.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The audit trail lists records by id, newest first, so ids must follow the order in which the
 * answers were recorded, even when one write is slower than the next (a pooled connection that is
 * still connecting, a busy server): a store whose ids are given at commit, the first append slow.
 */
describe('operator audit: records are appended in the order they were asked for', () => {
  it('a slow first write does not let the second record take the earlier id', async () => {
    const kept: { id: number; actor: string }[] = [];
    let next = 1;
    const store: OperatorAuditStore = {
      async append(record: OperatorAuditRecord) {
        if (record.actor === 'first') await sleep(50);
        const id = next++;
        kept.push({ id, actor: record.actor });
        return id;
      },
      finishBulk: async () => undefined,
      list: async () => ({ items: [], page: 1, pageSize: 20, totalCount: 0, totalPages: 0 }),
      prune: async () => 0,
    };
    const log = new OperatorAuditLog({
      store, clients: new ClientAddressResolver(null), lines: { info: () => undefined }, now: () => Date.now(), retentionDays: 90, warn: () => undefined,
    });
    const ids = await Promise.all(['first', 'second', 'third'].map((actor) => log.record({ actor, action: 'signIn', result: 'ok', status: 200 })));
    expect(ids).toEqual([1, 2, 3]);
    expect(kept.map((k) => k.actor)).toEqual(['first', 'second', 'third']);
    await log.close();
  });

  it('a failed write does not hold the next one back', async () => {
    let calls = 0;
    const store: OperatorAuditStore = {
      async append() {
        calls++;
        if (calls === 1) throw new Error('the database is gone for a moment');
        return calls;
      },
      finishBulk: async () => undefined,
      list: async () => ({ items: [], page: 1, pageSize: 20, totalCount: 0, totalPages: 0 }),
      prune: async () => 0,
    };
    const warnings: string[] = [];
    const log = new OperatorAuditLog({
      store, clients: new ClientAddressResolver(null), lines: { info: () => undefined }, now: () => Date.now(), retentionDays: 90, warn: (m) => warnings.push(m),
    });
    const ids = await Promise.all(['a', 'b'].map((actor) => log.record({ actor, action: 'signIn', result: 'ok', status: 200 })));
    expect(ids).toEqual([undefined, 2]);
    expect(warnings.length).toBeGreaterThan(0);
    await log.close();
  });
});
