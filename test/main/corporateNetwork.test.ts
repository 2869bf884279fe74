import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeNetwork } from '../../src/main/network/nodeNetwork.js';
import { createHttpClient } from '../../src/main/session/httpClient.js';
import { aesSafeStorage } from '../fixtures/main/aesSafeStorage.js';
import { useConsoleSuite } from '../fixtures/main/consoleSuite.js';
import { waitFor } from '../fixtures/waitFor.js';
import { startFullHost, svcEvent } from '../fixtures/main/fullHost.js';
import { createTestCertificates, type TestCertificates } from '../fixtures/main/testCertificates.js';

const login = { username: 'ops', password: 'tls-pw' };

describe('corporate networks: environments on HTTPS hosts with a private CA or a self-signed certificate (Node network)', () => {
  let certs: TestCertificates;
  const suite = useConsoleSuite({
    start: async (dir) => {
      certs = await createTestCertificates(dir);
      return {
        // The real monitoring API and SignalR hub over HTTPS, with a certificate from the test CA…
        corporate: await startFullHost(dir, { ...login, jwtSecret: 'c'.repeat(64) }, certs.issued),
        // …and with a certificate signed by itself.
        selfSigned: await startFullHost(dir, { ...login, jwtSecret: 's'.repeat(64) }, certs.selfSigned),
      };
    },
    userData: 'ud',
    console: { safeStorage: aesSafeStorage('gnome_libsecret'), burstWindowMs: 200, session: { retryAfterErrorMs: 60_000 }, hub: { reconnectDelaysMs: [0, 100], retryAfterFailureMs: 60_000 } },
    timeoutMs: 30_000,
  });
  const env = (name: string, baseUrl: string, extra: Record<string, unknown> = {}) => ({ name, baseUrl, colour: '#2563eb', isProduction: false, ...extra });

  let corporateId: string;
  beforeAll(async () => {
    corporateId = (await suite.services.addEnvironment(env('Corporate', suite.hosts.corporate.baseUrl))).id;
    await waitFor(() => suite.services.requireSession(corporateId).view().auth !== 'starting', 10_000, 'the first answer', 25);
  });

  it('without the CA the host is refused, and the message names the certificate problem', () => {
    const view = suite.services.requireSession(corporateId).view();
    expect(view.auth).toBe('error');
    expect(view.message).toBe(
      `Cannot reach ${suite.hosts.corporate.baseUrl}: the server's TLS certificate is not trusted: it is issued by a CA that is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE). ` +
        'Add the CA certificate file of this host to the environment (or, for a non-production environment, allow self-signed certificates)',
    );
  });

  it('with the CA certificate file the API logs in and the hub connects over a TLS WebSocket and delivers a failure', async () => {
    await suite.services.updateEnvironment(corporateId, { caCertificatePath: certs.caPath });
    await waitFor(() => suite.services.requireSession(corporateId).view().auth === 'logged-out', 10_000, 'the login prompt', 25);
    await suite.services.requireSession(corporateId).loginWithPassword(login.username, login.password, false);
    await suite.services.hub.whenState(corporateId, 'connected');
    expect(suite.hosts.corporate.upgrades()).toBeGreaterThanOrEqual(1);
    suite.hosts.corporate.emit(svcEvent('Failed'));
    await waitFor(() => suite.notifications.some((n) => n.environmentId === corporateId), 10_000, 'the failure notification', 25);
    expect(suite.notifications.find((n) => n.environmentId === corporateId)!.title).toBe('Task failed in Corporate');
    const tasks = await suite.services.proxy.call(corporateId, 'tasks.list', { pageSize: 5 });
    expect(tasks.items).toEqual([]);
  });

  it('a CA that did not issue the host certificate does not help', async () => {
    const other = await startFullHost(suite.dir, { ...login, jwtSecret: 'o'.repeat(64) }, certs.issued);
    try {
      const http = createHttpClient(`${other.baseUrl}/svc-monitoring/api`, 5_000, nodeNetwork({ id: 'x', ...env('Other', other.baseUrl, { caCertificatePath: certs.otherCaPath }) }).http);
      await expect(http.get('/config')).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      await other.close();
    }
  });

  it('"allow self-signed" connects a non-production environment (API and hub)', async () => {
    const id = (await suite.services.addEnvironment(env('Lab', suite.hosts.selfSigned.baseUrl))).id;
    await waitFor(() => suite.services.requireSession(id).view().auth === 'error', 10_000, 'the refusal', 25);
    expect(suite.services.requireSession(id).view().message).toMatch(/TLS certificate is not trusted: it is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    await suite.services.updateEnvironment(id, { allowSelfSigned: true });
    await waitFor(() => suite.services.requireSession(id).view().auth === 'logged-out', 10_000, 'the login prompt', 25);
    await suite.services.requireSession(id).loginWithPassword(login.username, login.password, false);
    await suite.services.hub.whenState(id, 'connected');
    expect(suite.hosts.selfSigned.upgrades()).toBeGreaterThanOrEqual(1);
  });

  it('"allow self-signed" is refused for production: on add, on marking the environment production, and for a hand-edited file', async () => {
    await expect(suite.services.addEnvironment({ ...env('Prod', suite.hosts.selfSigned.baseUrl, { allowSelfSigned: true }), isProduction: true })).rejects.toThrow(
      'allowSelfSigned: not allowed for a production environment (add its CA certificate file instead)',
    );
    const lab = suite.services.environments().find((e) => e.name === 'Lab')!;
    await expect(suite.services.updateEnvironment(lab.id, { isProduction: true })).rejects.toThrow(/allowSelfSigned: not allowed for a production environment/);
    expect(suite.services.environments().find((e) => e.name === 'Lab')!.isProduction).toBe(false);
    // A stored environment that says both (edited by hand) is not connected, and says why.
    const refused = nodeNetwork({ id: 'p', ...env('Prod', suite.hosts.selfSigned.baseUrl, { allowSelfSigned: true }), isProduction: true });
    const http = createHttpClient(`${suite.hosts.selfSigned.baseUrl}/svc-monitoring/api`, 5_000, refused.http);
    await expect(http.get('/config')).rejects.toThrow('allowSelfSigned: not allowed for a production environment (add its CA certificate file instead)');
  });

  it('the CA certificate file is checked when saved: missing, not PEM, not a certificate, relative', async () => {
    const add = (caCertificatePath: string) => suite.services.addEnvironment(env(`Check ${Math.random()}`, suite.hosts.corporate.baseUrl, { caCertificatePath }));
    const missing = join(suite.dir, 'nope.pem');
    await expect(add(missing)).rejects.toThrow(`caCertificatePath: cannot read "${missing}": no such file`);
    const text = join(suite.dir, 'notes.txt');
    await writeFile(text, 'not a certificate\n');
    await expect(add(text)).rejects.toThrow(`caCertificatePath: "${text}" holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----" blocks)`);
    const broken = join(suite.dir, 'broken.pem');
    await writeFile(broken, '-----BEGIN CERTIFICATE-----\nTm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
    await expect(add(broken)).rejects.toThrow(new RegExp(`caCertificatePath: certificate 1 in "${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" does not parse`));
    await expect(add('certs/ca.pem')).rejects.toThrow('caCertificatePath: caCertificatePath must be an absolute path');
    await expect(add(suite.dir)).rejects.toThrow(/cannot read .*: it is a folder/);
    expect(suite.services.environments().filter((e) => e.name.startsWith('Check'))).toEqual([]);
  });

  it('an edit with an empty path removes the CA file, and the environment is refused again', async () => {
    await suite.services.updateEnvironment(corporateId, { caCertificatePath: '' });
    expect(suite.services.environments().find((e) => e.id === corporateId)).not.toHaveProperty('caCertificatePath');
    await waitFor(() => suite.services.requireSession(corporateId).view().auth === 'error', 10_000, 'the refusal', 25);
    expect(suite.services.requireSession(corporateId).view().message).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(suite.services.hub.state(corporateId).state).not.toBe('connected');
  });
});
