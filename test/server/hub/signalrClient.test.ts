// @backends sqlite — no store at all (test/fixtures/server/hubServer.ts): the hub transport alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubConnectionState } from '@microsoft/signalr';
import type { SvcEvent } from '../../../server/src/contracts/index.js';
import { TRANSPORT_CASES, createHubClient, collectEvents, sampleEvent, shortLivedToken, signToken, startHubServer, type HubServer } from '../../fixtures/server/hubServer.js';
import { waitFor } from '../../fixtures/waitFor.js';

describe.each(TRANSPORT_CASES)('real @microsoft/signalr client over $name', (transportCase) => {
  let s: HubServer;
  beforeAll(async () => {
    s = await startHubServer({ keepAliveIntervalMs: 200, clientTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await s.close();
  });

  it('receives engine events as SvcEvent invocations with exact fields, nulls and executionLogs omitted', async () => {
    const token = signToken();
    const client = createHubClient(s.url, transportCase, () => token);
    const received = collectEvents(client, 3);
    await client.start();
    expect(client.state).toBe(HubConnectionState.Connected);
    await waitFor(() => s.hub.connectionCount() === 1, 5_000, 'connection count');

    const failed = sampleEvent({ parentTaskId: 'parent-1', attempt: 2 });
    const withNulls = {
      ...sampleEvent({ kind: 'Completed', severity: 'Information', message: 'Task completed', executionTimeMs: 12 }),
      exception: null,
      parentTaskId: null,
      executionLogs: [
        { id: 1, taskId: 't', timestampUtc: '2026-11-23T01:02:03.000Z', level: 'Information', message: 'hi', sequenceNumber: 1 },
      ],
    } as unknown as SvcEvent;
    const skipped: SvcEvent = {
      kind: 'OccurrenceSkipped',
      taskId: 'schedule-1',
      eventDateUtc: '2026-11-23T01:00:00.000Z',
      severity: 'Warning',
      taskType: 'Reports.Nightly',
      message: '3 occurrences skipped',
      reason: 'OverflowCap',
      skippedCount: 3,
      firstSlotUtc: '2026-11-22T01:00:00.000Z',
      lastSlotUtc: '2026-11-22T03:00:00.000Z',
      scheduleVersion: 2,
    };
    s.emitter.emit('event', failed);
    s.emitter.emit('event', withNulls);
    s.emitter.emit('event', skipped);

    const [a, b, c] = await received;
    expect(a).toEqual(failed);
    const { exception: _e, parentTaskId: _p, executionLogs: _l, ...expectedCompleted } = withNulls as SvcEvent & Record<string, unknown>;
    expect(b).toEqual(expectedCompleted);
    expect(Object.keys(b)).not.toContain('exception');
    expect(Object.keys(b)).not.toContain('executionLogs');
    expect(c).toEqual(skipped);
    await client.stop();
    await waitFor(() => s.hub.connectionCount() === 0, 5_000, 'disconnect');
  });

  it('answers an invocation of an unknown method with "Method does not exist" and stays connected', async () => {
    const token = signToken();
    const client = createHubClient(s.url, transportCase, () => token);
    await client.start();
    await expect(client.invoke('DeleteEverything', 1)).rejects.toThrow(/Method does not exist/);
    // A non-blocking send is ignored; the connection keeps receiving events.
    await client.send('DeleteEverything', 2);
    const received = collectEvents(client, 1);
    s.emitter.emit('event', sampleEvent({ taskId: 'after-invoke' }));
    expect((await received)[0].taskId).toBe('after-invoke');
    expect(client.state).toBe(HubConnectionState.Connected);
    await client.stop();
  });

  it('keeps an idle connection alive with pings shorter than the client timeout', async () => {
    const token = signToken();
    const client = createHubClient(s.url, transportCase, () => token);
    // The client expects a server message at least every serverTimeoutInMilliseconds; ten
    // server pings fit in it, so that a loaded machine pausing this process for a while does not
    // let the client's timer fire before the pings queued meanwhile are read.
    client.serverTimeoutInMilliseconds = 2_000;
    client.keepAliveIntervalInMilliseconds = 300;
    await client.start();
    await new Promise((r) => setTimeout(r, 4_200));
    expect(client.state).toBe(HubConnectionState.Connected);
    await client.stop();
  });

  it('sends Close "Token expired" at the token exp and the error reaches onclose', async () => {
    // A hub of its own with the default client timeout, so that only the token can end the
    // connection (a long-polling client slow to poll again on a loaded machine is not dropped
    // first); the token lives long enough for the client's start there.
    const own = await startHubServer();
    try {
      const token = shortLivedToken(3);
      const client = createHubClient(own.url, transportCase, () => token);
      const closed = new Promise<Error | undefined>((resolve) => client.onclose((err) => resolve(err)));
      await client.start();
      const error = await closed;
      expect(error?.message).toContain('Token expired');
      await waitFor(() => own.hub.connectionCount() === 0, 5_000, 'server side drop');
    } finally {
      await own.close();
    }
  });
});
