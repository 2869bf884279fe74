import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENVIRONMENTS_FILE, EnvironmentStore } from '../../src/main/environments/EnvironmentStore.js';
import { makeTempDir } from './support/tempDir.js';

const prod = { name: 'Production', baseUrl: 'https://ops.example.com/', colour: '#C0392B', isProduction: true };
const staging = { name: 'Staging', baseUrl: 'http://127.0.0.1:5080', colour: '#2980b9', isProduction: false, group: 'EU' };

describe('EnvironmentStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
  afterEach(() => cleanup());

  it('adds, edits, reorders and removes environments and keeps them in environments.json', async () => {
    const store = await EnvironmentStore.open(dir);
    const p = await store.add(prod);
    const s = await store.add(staging);
    expect(p.baseUrl).toBe('https://ops.example.com');
    expect(p.colour).toBe('#c0392b');
    await store.update(s.id, { name: 'Staging EU', favourite: true });
    await store.reorder([s.id, p.id]);

    const reopened = await EnvironmentStore.open(dir);
    expect(reopened.list().map((e) => [e.name, e.favourite ?? false])).toEqual([
      ['Staging EU', true],
      ['Production', false],
    ]);
    const file = JSON.parse(await readFile(join(dir, ENVIRONMENTS_FILE), 'utf8'));
    expect(file.environments).toHaveLength(2);

    await reopened.remove(p.id);
    expect((await EnvironmentStore.open(dir)).list().map((e) => e.name)).toEqual(['Staging EU']);
  });

  it('refuses a non-http(s) URL, a duplicate name (any case), a bad colour, and a bad reorder', async () => {
    const store = await EnvironmentStore.open(dir);
    await store.add(prod);
    await expect(store.add({ ...staging, baseUrl: 'ftp://host' })).rejects.toThrow(/baseUrl must be an http/);
    await expect(store.add({ ...staging, baseUrl: 'javascript:alert(1)' })).rejects.toThrow(/baseUrl/);
    await expect(store.add({ ...staging, baseUrl: 'https://user:pw@host' })).rejects.toThrow(/without credentials/);
    await expect(store.add({ ...staging, name: 'production' })).rejects.toThrow(/already exists/);
    await expect(store.add({ ...staging, name: '  ' })).rejects.toThrow(/name is required/);
    await expect(store.add({ ...staging, colour: 'red' })).rejects.toThrow(/colour must be #rrggbb/);
    await expect(store.add({ ...staging, extra: 1 } as never)).rejects.toThrow(/extra/);
    const s = await store.add(staging);
    await expect(store.update(s.id, { name: 'PRODUCTION' })).rejects.toThrow(/already exists/);
    await expect(store.reorder([s.id])).rejects.toThrow(/every environment id exactly once/);
    await expect(store.update('nope', { name: 'x' })).rejects.toThrow(/unknown environment/);
    expect(store.list()).toHaveLength(2);
  });

  it('exports without ids or secrets and imports by merge or replace', async () => {
    const store = await EnvironmentStore.open(dir);
    const p = await store.add(prod);
    await store.add(staging);
    const exported = store.exportJson();
    const doc = JSON.parse(exported);
    expect(doc.format).toBe('svc-monitor-environments');
    expect(Object.keys(doc.environments[0]).sort()).toEqual(['baseUrl', 'colour', 'isProduction', 'name']);
    expect(exported).not.toMatch(/token|password|"id"/i);

    const other = await EnvironmentStore.open((await makeTempDir()).dir);
    await other.add({ ...prod, colour: '#000000' });
    const merged = await other.importJson(exported, 'merge');
    expect(merged).toEqual({ added: 1, updated: 1, removedIds: [] });
    expect(other.list().map((e) => [e.name, e.colour])).toEqual([
      ['Production', '#c0392b'],
      ['Staging', '#2980b9'],
    ]);

    const replaced = await store.importJson(JSON.stringify({ ...doc, environments: [doc.environments[1]] }), 'replace');
    expect(replaced.removedIds).toEqual([p.id]);
    expect(store.list().map((e) => e.name)).toEqual(['Staging']);

    await expect(store.importJson('{', 'merge')).rejects.toThrow(/not valid JSON/);
    await expect(store.importJson(JSON.stringify({ ...doc, environments: [{ ...doc.environments[0], baseUrl: 'file:///etc' }] }), 'merge')).rejects.toThrow(/baseUrl/);
    await expect(store.importJson(JSON.stringify({ ...doc, environments: [doc.environments[0], doc.environments[0]] }), 'merge')).rejects.toThrow(/duplicate name/);
  });

  it('finds an environment by id or by name, case-insensitively', async () => {
    const store = await EnvironmentStore.open(dir);
    const p = await store.add(prod);
    expect(store.find(p.id)?.name).toBe('Production');
    expect(store.find('production')?.id).toBe(p.id);
    expect(store.find('nope')).toBeUndefined();
  });
});
