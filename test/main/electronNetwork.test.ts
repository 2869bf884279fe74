import { HttpTransportType } from '@microsoft/signalr';
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/shared/environment.js';
import { ACCEPT, USE_CHROMIUM_RESULT } from '../../src/main/network/certificateVerdict.js';
import { electronNetwork, partitionOf, type ElectronNetworkApi } from '../../src/main/network/electronNetwork.js';
import { createHttpClient, networkError } from '../../src/main/session/httpClient.js';
import { startFullHost, type FullHost } from '../fixtures/main/fullHost.js';
import { createRecordingElectron } from '../fixtures/main/recordingElectron.js';
import { createTempDir } from '../fixtures/main/tempDir.js';
import { createTestCertificates, type TestCertificates } from '../fixtures/main/testCertificates.js';

/** Chromium's error code for a certificate whose issuer it does not trust. */
const ERR_CERT_AUTHORITY_INVALID = -202;

describe("the app's network on Electron's stack (selection and certificate rules, against a recording electron module)", () => {
  let certs: TestCertificates;
  let host: FullHost;
  let cleanup: () => Promise<void>;
  let rec: ReturnType<typeof createRecordingElectron>;
  let fetched: string[];
  let networkFor: ReturnType<typeof electronNetwork>;
  const env = (extra: Partial<Environment> = {}): Environment => ({ id: 'stg', name: 'Staging', baseUrl: 'https://127.0.0.1:9', colour: '#2563eb', isProduction: false, ...extra });

  beforeAll(async () => {
    const tmp = await createTempDir('svc-electron-net-');
    cleanup = tmp.cleanup;
    certs = await createTestCertificates(tmp.dir);
    host = await startFullHost(tmp.dir, { username: 'ops', password: 'pw' });
    rec = createRecordingElectron(tmp.dir, process.cwd());
    fetched = [];
    const netRequest = rec.electron.net.request;
    rec.electron.net.request = (options) => (fetched.push(options.url), netRequest(options));
    networkFor = electronNetwork(rec.electron as unknown as ElectronNetworkApi);
    return async () => {
      await host.close();
      await cleanup();
    };
  });

  it('an environment without TLS settings of its own goes through net.request on the default session (system trust store and proxy); the API answers through it', async () => {
    const network = networkFor(env({ baseUrl: host.baseUrl }));
    expect(rec.partitions.size).toBe(0);
    const http = createHttpClient(`${host.baseUrl}/svc-monitoring/api`, 5_000, network.http);
    const config = await http.get('/config');
    expect(config.status).toBe(200);
    expect(config.data).toMatchObject({ signalRHubPath: '/svc-monitoring/hub' });
    expect(fetched).toEqual([`${host.baseUrl}/svc-monitoring/api/config`]);
  });

  it('an environment with a CA file gets its own session whose certificate check accepts a chain to that CA for the right host only', async () => {
    networkFor(env({ caCertificatePath: certs.caPath }));
    const session = rec.partitions.get(partitionOf('stg'))!;
    expect(session.verifyProc).toBeDefined();
    const verdict = (hostname: string, cert: string, errorCode = ERR_CERT_AUTHORITY_INVALID) => {
      let answer: number | undefined;
      session.verifyProc!({ hostname, certificate: { data: cert }, errorCode }, (v) => (answer = v));
      return answer;
    };
    expect(verdict('127.0.0.1', certs.issued.cert)).toBe(ACCEPT);
    expect(verdict('localhost', certs.issued.cert)).toBe(ACCEPT);
    // Issued for 127.0.0.1 and localhost, presented by another host: Chromium's refusal stands.
    expect(verdict('ops.example.com', certs.issued.cert)).toBe(USE_CHROMIUM_RESULT);
    // Not issued by the CA.
    expect(verdict('127.0.0.1', certs.selfSigned.cert)).toBe(USE_CHROMIUM_RESULT);
    // Chromium accepted it (system trust store): its result is kept.
    expect(verdict('127.0.0.1', certs.issued.cert, 0)).toBe(USE_CHROMIUM_RESULT);
    // A server that sends its chain (leaf, then the CA) is accepted the same way.
    const ca = await readFile(certs.caPath, 'utf8');
    let chained: number | undefined;
    session.verifyProc!({ hostname: '127.0.0.1', certificate: { data: certs.issued.cert, issuerCert: { data: ca } } as { data: string }, errorCode: ERR_CERT_AUTHORITY_INVALID }, (v) => (chained = v));
    expect(chained).toBe(ACCEPT);
    expect(new X509Certificate(certs.issued.cert).checkIssued(new X509Certificate(ca))).toBe(true);
  });

  it('"allow self-signed" accepts any certificate in its session; a CA that did not issue it accepts nothing', () => {
    networkFor(env({ id: 'lab', allowSelfSigned: true }));
    let answer: number | undefined;
    rec.partitions.get(partitionOf('lab'))!.verifyProc!({ hostname: '127.0.0.1', certificate: { data: certs.selfSigned.cert }, errorCode: ERR_CERT_AUTHORITY_INVALID }, (v) => (answer = v));
    expect(answer).toBe(ACCEPT);
    networkFor(env({ id: 'other', caCertificatePath: certs.otherCaPath }));
    rec.partitions.get(partitionOf('other'))!.verifyProc!({ hostname: '127.0.0.1', certificate: { data: certs.issued.cert }, errorCode: ERR_CERT_AUTHORITY_INVALID }, (v) => (answer = v));
    expect(answer).toBe(USE_CHROMIUM_RESULT);
  });

  it('production with "allow self-signed" (a hand-edited file) gets no session and every request fails with the reason', async () => {
    const network = networkFor(env({ id: 'prd', isProduction: true, allowSelfSigned: true }));
    expect(rec.partitions.has(partitionOf('prd'))).toBe(false);
    const http = createHttpClient('https://127.0.0.1:9/svc-monitoring/api', 5_000, network.http);
    await expect(http.get('/config')).rejects.toThrow('allowSelfSigned: not allowed for a production environment (add its CA certificate file instead)');
    await expect(network.hub('https://127.0.0.1:9/svc-monitoring/hub')).rejects.toThrow(/not allowed for a production environment/);
  });

  it("Chromium's certificate refusal reaches the user named, with what to do", async () => {
    const session = rec.partitions.get(partitionOf('stg'))!;
    const requestBefore = rec.electron.net.request;
    // What net.request raises when Chromium's verification (and the session's check) refused the host.
    rec.electron.net.request = (options) => {
      const request = requestBefore(options);
      if (options.session !== session) return request;
      request.end = () => void setImmediate(() => request.emit('error', new Error('net::ERR_CERT_AUTHORITY_INVALID')));
      return request;
    };
    try {
      const network = networkFor(env({ caCertificatePath: certs.caPath }));
      const http = createHttpClient('https://ops.example.com/svc-monitoring/api', 5_000, network.http);
      const err = await http.get('/config').catch((e: unknown) => e);
      expect(networkError(err, 'Cannot reach https://ops.example.com').message).toBe(
        "Cannot reach https://ops.example.com: the server's TLS certificate is not trusted: it is issued by a CA that is not trusted (or is self-signed) (net::ERR_CERT_AUTHORITY_INVALID). " +
          'Add the CA certificate file of this host to the environment (or, for a non-production environment, allow self-signed certificates)',
      );
    } finally {
      rec.electron.net.request = requestBefore;
    }
  });

  it('the hub uses WebSockets when the system proxy says DIRECT, and long polling (through Chromium and its proxy) otherwise', async () => {
    const network = networkFor(env({ baseUrl: host.baseUrl }));
    expect((await network.hub(`${host.baseUrl}/svc-monitoring/hub`)).transport).toBe(HttpTransportType.WebSockets | HttpTransportType.LongPolling);
    rec.network.proxyFor = (url) => (url.startsWith(host.baseUrl) ? 'PROXY proxy.corp.example:8080' : 'DIRECT');
    try {
      const hub = await network.hub(`${host.baseUrl}/svc-monitoring/hub`);
      expect(hub.transport).toBe(HttpTransportType.LongPolling);
      // Its HTTP (negotiate, polls) is the same requests: a negotiate goes through net.request.
      fetched.length = 0;
      const negotiate = await hub.httpClient.post(`${host.baseUrl}/svc-monitoring/hub/negotiate?negotiateVersion=1`, { content: '' }).catch((e: unknown) => e);
      expect(fetched).toEqual([`${host.baseUrl}/svc-monitoring/hub/negotiate?negotiateVersion=1`]);
      // Without a token the hub refuses: the refusal comes back as the hub client's HttpError.
      expect(negotiate).toMatchObject({ statusCode: 401 });
    } finally {
      rec.network.proxyFor = () => 'DIRECT';
    }
  });
});
