import { describe, expect, it } from 'vitest';
import { defaultFilter, filterToApiQuery, filterToQuery, queryToFilter, withChange, type TaskFilter } from '../../src/renderer/stores/taskFilter.js';

describe('task filter ↔ URL query', () => {
  it('a plain filter makes a plain URL and back', () => {
    expect(filterToQuery(defaultFilter())).toEqual({});
    expect(queryToFilter({})).toEqual(defaultFilter());
  });

  it('round-trips every filter of GET /tasks through the URL', () => {
    const f: TaskFilter = {
      statuses: ['Failed', 'Cancelled'],
      queueName: 'billing',
      taskType: 'Invoice',
      isRecurring: false,
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-11-20T12:30:00.000Z',
      searchTerm: 'key-42',
      searchIn: 'names',
      parentTaskId: '9b2f3c1e-0000-4000-8000-000000000001',
      onlyOccurrences: true,
      onlyCatchUp: false,
      sortBy: 'ExecutionTimeMs',
      sortDescending: false,
      page: 3,
      pageSize: 50,
    };
    const query = filterToQuery(f);
    expect(query).toEqual({
      statuses: ['Failed', 'Cancelled'],
      queueName: 'billing',
      taskType: 'Invoice',
      isRecurring: 'false',
      createdAfter: '2026-11-01T00:00:00.000Z',
      createdBefore: '2026-11-20T12:30:00.000Z',
      searchTerm: 'key-42',
      searchIn: 'names',
      parentTaskId: '9b2f3c1e-0000-4000-8000-000000000001',
      onlyOccurrences: 'true',
      onlyCatchUp: 'false',
      sortBy: 'ExecutionTimeMs',
      sortDescending: 'false',
      page: '3',
      pageSize: '50',
    });
    expect(queryToFilter(query)).toEqual(f);
    expect(filterToApiQuery(f)).toMatchObject({ statuses: ['Failed', 'Cancelled'], isRecurring: false, onlyCatchUp: false, page: 3, pageSize: 50 });
  });

  it('the search box looks in names and arguments unless the URL restricts it', () => {
    const all = queryToFilter({ searchTerm: 'ACME-42' });
    expect(all.searchIn).toBe('all');
    expect(filterToQuery(all)).toEqual({ searchTerm: 'ACME-42' });
    const pick = (q: ReturnType<typeof filterToApiQuery>) => ({ searchTerm: q.searchTerm, searchScope: q.searchScope, requestSearch: q.requestSearch });
    expect(pick(filterToApiQuery(all))).toEqual({ searchTerm: 'ACME-42', searchScope: 'NamesAndArguments', requestSearch: undefined });
    const args = queryToFilter({ searchTerm: 'ACME-42', searchIn: 'arguments' });
    expect(pick(filterToApiQuery(args))).toEqual({ requestSearch: 'ACME-42', searchTerm: undefined, searchScope: undefined });
    expect(pick(filterToApiQuery(queryToFilter({ searchTerm: 'x', searchIn: 'names' })))).toEqual({ searchTerm: 'x', searchScope: undefined, requestSearch: undefined });
    expect(queryToFilter({ searchIn: 'everywhere' }).searchIn).toBe('all');
  });

  it('a single status in the URL is a string, not an array, and still reads back', () => {
    expect(queryToFilter({ statuses: 'Failed' }).statuses).toEqual(['Failed']);
  });

  it('malformed values fall back to defaults instead of breaking the page', () => {
    const f = queryToFilter({ statuses: ['Nope', 'Failed', 'Failed'], page: '-4', pageSize: '100000', sortBy: 'drop table', isRecurring: 'maybe', createdAfter: 'yesterday' });
    expect(f.statuses).toEqual(['Failed']);
    expect(f.page).toBe(1);
    expect(f.pageSize).toBe(500);
    expect(f.sortBy).toBe('CreatedAtUtc');
    expect(f.isRecurring).toBeUndefined();
    expect(f.createdAfter).toBeUndefined();
  });

  it('sort field matches case-insensitively', () => {
    expect(queryToFilter({ sortBy: 'queuename' }).sortBy).toBe('QueueName');
  });

  it('changing a filter returns to page 1; changing the page keeps the filters', () => {
    const f = { ...defaultFilter(), page: 5, queueName: 'a' };
    expect(withChange(f, { queueName: 'b' }).page).toBe(1);
    expect(withChange(f, { page: 6 })).toMatchObject({ page: 6, queueName: 'a' });
  });
});
