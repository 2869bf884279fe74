// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubConnectionState } from '@microsoft/signalr';
import { TRANSPORT_CASES, createHubClient, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';

describe.each(TRANSPORT_CASES)('real client access refusals over $name', (transportCase) => {
  let s: HubServer;
  beforeAll(async () => {
    s = await startHubServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it('start() fails without a token (401) and with a token the access function refuses (403)', async () => {
    const noToken = createHubClient(s.url, transportCase, () => '');
    await expect(noToken.start()).rejects.toThrow(transportCase.skipNegotiation ? /WebSocket failed to connect/ : /401/);
    expect(noToken.state).toBe(HubConnectionState.Disconnected);
    const blocked = signToken({ blocked: true });
    const refused = createHubClient(s.url, transportCase, () => blocked);
    await expect(refused.start()).rejects.toThrow(transportCase.skipNegotiation ? /WebSocket failed to connect/ : /403/);
    expect(s.hub.connectionCount()).toBe(0);
  });
});
