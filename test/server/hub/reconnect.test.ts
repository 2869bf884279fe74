// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { afterAll, describe, expect, it } from 'vitest';
import { HubConnectionState } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { TRANSPORT_CASES, createHubClient, sampleEvent, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';
import { reusablePort } from '../../fixtures/reusablePort.js';
import { waitFor } from '../../fixtures/waitFor.js';

describe.each(TRANSPORT_CASES)('hub automatic reconnect over $name', (transportCase) => {
  let second: HubServer | undefined;
  afterAll(async () => {
    await second?.close();
    second = undefined;
  });

  it('withAutomaticReconnect reconnects after the server restarts on the same port and receives events again', async () => {
    // Below the ephemeral range: while the server is down, no other file's socket can take its port.
    const first = await startHubServer({}, await reusablePort());
    const client = createHubClient(first.url, transportCase, () => signToken(), true);
    const ids: string[] = [];
    client.on('SvcEvent', (e: SvcEvent) => ids.push(e.taskId));
    let reconnecting = 0;
    let reconnected = 0;
    client.onreconnecting(() => reconnecting++);
    client.onreconnected(() => reconnected++);
    await client.start();
    first.emitter.emit('event', sampleEvent({ taskId: 'before' }));
    await waitFor(() => ids.length === 1, 5_000, 'first event');

    await first.close();
    await waitFor(() => reconnecting === 1, 5_000, 'onreconnecting');
    second = await startHubServer({}, first.port);
    await waitFor(() => reconnected === 1, 10_000, 'onreconnected');
    expect(client.state).toBe(HubConnectionState.Connected);
    second.emitter.emit('event', sampleEvent({ taskId: 'after' }));
    await waitFor(() => ids.length === 2, 5_000, 'event after restart');
    expect(ids).toEqual(['before', 'after']);
    await client.stop();
  });
});
