import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENVIRONMENTS_FILE, EnvironmentStore } from '../../src/main/environments/EnvironmentStore.js';
import { NOTIFICATION_SETTINGS_FILE, NotificationSettingsFile } from '../../src/main/notifications/NotificationSettingsFile.js';
import { nodeNetwork } from '../../src/main/network/nodeNetwork.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

const prod = { name: 'Production', baseUrl: 'https://ops.example.com/', colour: '#C0392B', isProduction: true };
const staging = { name: 'Staging', baseUrl: 'http://127.0.0.1:5080', colour: '#2980b9', isProduction: false, group: 'EU' };

describe('EnvironmentStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
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

  it('refuses a production environment at http:// unless its name is typed to allow it; a rename asks again; the network refuses a hand-edited one', async () => {
    const store = await EnvironmentStore.open(dir);
    const plain = { ...prod, baseUrl: 'http://ops.example.com' };
    const reason = 'baseUrl: a production environment at http:// sends its password and token unencrypted; use https://, or type the environment\'s name "Production" to allow it (insecureHttpConfirmedName)';
    await expect(store.add(plain)).rejects.toThrow(reason);
    await expect(store.add({ ...plain, insecureHttpConfirmedName: 'production' })).rejects.toThrow(reason);
    const allowed = await store.add({ ...plain, insecureHttpConfirmedName: ' Production ' });
    expect(allowed).toMatchObject({ baseUrl: 'http://ops.example.com', insecureHttpConfirmedName: 'Production' });
    await expect(store.update(allowed.id, { name: 'Prod EU' })).rejects.toThrow(/type the environment's name "Prod EU"/);
    // Staging at http://, and production on a loopback address (nothing leaves the machine), need nothing.
    const s = await store.add({ ...staging, baseUrl: 'http://staging.example.com' });
    await expect(store.update(s.id, { isProduction: true })).rejects.toThrow(/type the environment's name "Staging"/);
    await store.add({ ...prod, name: 'Local', baseUrl: 'http://127.0.0.1:5080' });
    // A file edited by hand still loads, but nothing is sent to the host.
    const network = nodeNetwork({ id: 'x', ...plain });
    await expect(network.hub('http://ops.example.com/svc-monitoring/hub')).rejects.toThrow(reason);
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

    const other = await EnvironmentStore.open((await createTempDir()).dir);
    await other.add({ ...prod, colour: '#000000' });
    const merged = await other.importJson(exported, 'merge');
    expect(merged).toEqual({ added: 1, updated: 1, removedIds: [], skipped: [] });
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

  it('an import never carries the typed confirmation of production over http, and one unusable entry (a missing CA file) is reported while the rest is imported', async () => {
    const { dir: importDir } = await createTempDir();
    const store = await EnvironmentStore.open(importDir);
    const file = JSON.stringify({
      format: 'svc-monitor-environments',
      version: 1,
      environments: [
        { name: 'Ops', baseUrl: 'http://ops.example.com', colour: '#c0392b', isProduction: true, insecureHttpConfirmedName: 'Ops' },
        { name: 'Corp', baseUrl: 'https://corp.example.com', colour: '#2980b9', isProduction: false, caCertificatePath: '/nowhere/corp-ca.pem' },
        { name: 'QA', baseUrl: 'https://qa.example.com', colour: '#16a34a', isProduction: false },
      ],
    });
    const result = await store.importJson(file, 'merge');
    expect(result.added).toBe(1);
    expect(result.skipped.map((s) => s.name)).toEqual(['Ops', 'Corp']);
    expect(result.skipped[0]!.reason).toMatch(/type the environment's name "Ops"/);
    expect(result.skipped[1]!.reason).toMatch(/corp-ca\.pem/);
    expect((await EnvironmentStore.open(importDir)).list().map((e) => e.name)).toEqual(['QA']);
    // Confirmed on this machine, the same address re-imported keeps its confirmation.
    const ops = await store.add({ name: 'Ops', baseUrl: 'http://ops.example.com', colour: '#c0392b', isProduction: true, insecureHttpConfirmedName: 'Ops' });
    const again = await store.importJson(file, 'replace');
    expect(again.skipped.map((s) => s.name)).toEqual(['Corp']);
    expect(store.get(ops.id)).toMatchObject({ insecureHttpConfirmedName: 'Ops' });
    expect(store.list().map((e) => e.name)).toEqual(['Ops', 'QA']);
  });

  it('an import that would move an environment to another address or take away its production flag writes nothing until confirmed, in merge and replace alike', async () => {
    const { dir: importDir } = await createTempDir();
    const store = await EnvironmentStore.open(importDir);
    await store.add({ name: 'Billing', baseUrl: 'https://billing.example.com', colour: '#c0392b', isProduction: true });
    await store.add({ name: 'QA', baseUrl: 'https://qa.example.com', colour: '#16a34a', isProduction: false });
    const file = JSON.stringify({
      format: 'svc-monitor-environments',
      version: 1,
      environments: [
        { name: 'billing', baseUrl: 'https://billing.attacker.example', colour: '#c0392b', isProduction: false },
        { name: 'QA', baseUrl: 'https://qa.example.com', colour: '#000000', isProduction: false },
      ],
    });
    for (const mode of ['merge', 'replace'] as const) {
      const preview = await store.importJson(file, mode);
      expect(preview).toMatchObject({ added: 0, updated: 0, removedIds: [], unconfirmed: [{ name: 'Billing', changes: ['address https://billing.example.com → https://billing.attacker.example', 'no longer production'] }] });
      expect((await EnvironmentStore.open(importDir)).list().map((e) => [e.name, e.baseUrl, e.isProduction, e.colour])).toEqual([
        ['Billing', 'https://billing.example.com', true, '#c0392b'],
        ['QA', 'https://qa.example.com', false, '#16a34a'],
      ]);
    }
    const applied = await store.importJson(file, 'merge', true);
    expect(applied).toMatchObject({ added: 0, updated: 2 });
    expect(store.list().map((e) => [e.name, e.baseUrl, e.isProduction])).toEqual([
      ['billing', 'https://billing.attacker.example', false],
      ['QA', 'https://qa.example.com', false],
    ]);
  });

  it('changes made at once (an import beside adds and edits from the window) are all kept', async () => {
    const store = await EnvironmentStore.open(dir);
    const before = store.list().length;
    const added = await Promise.all(Array.from({ length: 10 }, (_, i) => store.add({ name: `Parallel ${i}`, baseUrl: `http://127.0.0.1:${5100 + i}`, colour: '#2563eb', isProduction: false })));
    await Promise.all([store.update(added[0]!.id, { colour: '#dc2626' }), store.remove(added[1]!.id), store.add({ name: 'Parallel late', baseUrl: 'http://127.0.0.1:5199', colour: '#2563eb', isProduction: false })]);
    const names = (await EnvironmentStore.open(dir)).list().map((e) => e.name);
    expect(names.length).toBe(before + 10);
    expect(names).toContain('Parallel late');
    expect(names).not.toContain('Parallel 1');
    expect((await EnvironmentStore.open(dir)).list().find((e) => e.name === 'Parallel 0')?.colour).toBe('#dc2626');
  });

  it('finds an environment by id or by name, case-insensitively', async () => {
    const store = await EnvironmentStore.open(dir);
    const p = await store.add(prod);
    expect(store.find(p.id)?.name).toBe('Production');
    expect(store.find('production')?.id).toBe(p.id);
    expect(store.find('nope')).toBeUndefined();
  });
});

describe('stored files written by another version or by hand', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(() => cleanup());

  it('keeps fields it does not know, in the file and in each environment, across a save', async () => {
    const file = join(dir, ENVIRONMENTS_FILE);
    await writeFile(file, JSON.stringify({ version: 1, savedBy: '0.2.0', environments: [{ id: 'p1', ...prod, baseUrl: 'https://ops.example.com', colour: '#c0392b', proxy: { mode: 'system' } }] }));
    const store = await EnvironmentStore.open(dir);
    expect(store.recovery).toBeUndefined();
    expect(store.list()).toEqual([{ id: 'p1', name: 'Production', baseUrl: 'https://ops.example.com', colour: '#c0392b', isProduction: true }]);
    await store.update('p1', { name: 'Prod' });
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved).toMatchObject({ version: 1, savedBy: '0.2.0', environments: [{ id: 'p1', name: 'Prod', proxy: { mode: 'system' } }] });
  });

  it('moves a file that no longer matches the schema aside and starts with an empty list', async () => {
    const file = join(dir, ENVIRONMENTS_FILE);
    const broken = JSON.stringify({ version: 1, environments: [{ id: 'p1', name: 'Production', baseUrl: 'ftp://nope', colour: 'red', isProduction: 'yes' }] });
    await writeFile(file, broken);
    const store = await EnvironmentStore.open(dir, () => new Date('2026-11-23T10:20:30.456Z'));
    expect(store.list()).toEqual([]);
    expect(store.recovery).toEqual({ reason: expect.stringMatching(/is invalid: .*baseUrl/), movedTo: `${file}.bad-2026-11-23T10-20-30-456Z` });
    expect(await readFile(store.recovery!.movedTo, 'utf8')).toBe(broken);
    expect(await readdir(dir)).not.toContain(ENVIRONMENTS_FILE);
    // The console works on: a new environment is saved to a fresh file.
    await store.add(prod);
    expect(JSON.parse(await readFile(file, 'utf8')).environments).toHaveLength(1);
  });

  it('moves a file that is not JSON aside too', async () => {
    await writeFile(join(dir, ENVIRONMENTS_FILE), '{ "version": 1, "environments": [');
    const store = await EnvironmentStore.open(dir);
    expect(store.recovery?.reason).toMatch(/not valid JSON/);
    expect(store.list()).toEqual([]);
  });

  it('keeps unknown fields of the notification settings', async () => {
    await writeFile(join(dir, NOTIFICATION_SETTINGS_FILE), JSON.stringify({ scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: ['a'], digest: true }));
    const settings = new NotificationSettingsFile(dir);
    expect(await settings.load()).toEqual({ scope: 'all', chosenEnvironmentIds: [], mutedEnvironmentIds: ['a'] });
    await settings.save({ scope: 'chosen', chosenEnvironmentIds: ['b'], mutedEnvironmentIds: [] });
    expect(JSON.parse(await readFile(join(dir, NOTIFICATION_SETTINGS_FILE), 'utf8'))).toEqual({ digest: true, scope: 'chosen', chosenEnvironmentIds: ['b'], mutedEnvironmentIds: [] });
  });
});
