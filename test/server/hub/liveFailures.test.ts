// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpretHubFailure } from '../../../server/src/contracts/liveConnection.js';
import { createHubClient, shortLivedToken, startHubServer, TRANSPORT_CASES, type HubServer } from '../../fixtures/server/hubServer.js';

/** What the real @microsoft/signalr client reports, read by the one interpretation both clients use. */
describe('interpretHubFailure on the real SignalR client', () => {
  let s: HubServer;
  beforeAll(async () => {
    s = await startHubServer();
  });
  afterAll(async () => {
    await s.close();
  });
  const webSockets = TRANSPORT_CASES[0]!;

  it('no hub at the address (404) is unavailable', async () => {
    const url = s.url.replace(/\/svc-monitoring\/hub$/, '/no-hub-here');
    const client = createHubClient(url, webSockets, () => 'x');
    const error = await client.start().then(() => undefined, (e: unknown) => e);
    expect(interpretHubFailure(error)).toMatchObject({ kind: 'unavailable', status: 404 });
  });

  it('a missing token (401) is unauthorized', async () => {
    const client = createHubClient(s.url, webSockets, () => '');
    const error = await client.start().then(() => undefined, (e: unknown) => e);
    expect(interpretHubFailure(error)).toMatchObject({ kind: 'unauthorized', status: 401 });
  });

  it('Close "Token expired" is token-expired, with the reason alone as message', async () => {
    const client = new HubConnectionBuilder()
      .withUrl(s.url, { transport: HttpTransportType.WebSockets, accessTokenFactory: shortLivedToken })
      .configureLogging(LogLevel.None)
      .build();
    const closed = new Promise<Error | undefined>((resolve) => client.onclose(resolve));
    await client.start();
    const error = await closed;
    expect(interpretHubFailure(error)).toEqual({ kind: 'token-expired', message: 'Token expired' });
  });

  it('anything else is transient', () => {
    expect(interpretHubFailure(new Error('Failed to fetch')).kind).toBe('transient');
    expect(interpretHubFailure(undefined)).toEqual({ kind: 'transient', message: 'The live connection closed' });
  });
});
