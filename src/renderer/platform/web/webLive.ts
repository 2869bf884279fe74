import { HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../../../../server/src/contracts/events.js';
import { interpretHubFailure, type LiveState } from '../../../../server/src/contracts/liveConnection.js';
import type { LiveConnection } from '../Platform.js';

export interface WebLiveOptions {
  hubUrl: string;
  getToken: () => string | undefined;
  /** Delays between attempts when the first connection fails (not 404/401). */
  startRetryDelaysMs?: number[];
}

/** Live events over @microsoft/signalr: SvcEvent invocations, automatic reconnect. */
export function connectWebLive(
  options: WebLiveOptions,
  onEvent: (event: SvcEvent) => void,
  onState: (state: LiveState, detail?: string) => void,
): LiveConnection {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  const delays = options.startRetryDelaysMs ?? [2_000, 5_000, 10_000, 30_000];

  const connection: HubConnection = new HubConnectionBuilder()
    .withUrl(options.hubUrl, { accessTokenFactory: () => options.getToken() ?? '' })
    .withAutomaticReconnect([0, 2_000, 5_000, 10_000, 30_000, 30_000, 60_000])
    .configureLogging(LogLevel.None)
    .build();

  connection.on('SvcEvent', (event: SvcEvent) => onEvent(event));
  connection.onreconnecting(() => onState('reconnecting'));
  connection.onreconnected(() => onState('connected'));
  connection.onclose((error) => {
    if (stopped) return;
    // Automatic reconnect gave up, or the server closed without allowing it. The web dashboard
    // cannot renew a token: an expired or refused one needs a new login.
    const failure = interpretHubFailure(error);
    if (failure.kind === 'token-expired' || failure.kind === 'unauthorized') {
      onState('unauthorized', failure.message);
      return;
    }
    onState('error', failure.message);
    schedule();
  });

  function schedule(): void {
    if (stopped) return;
    const delay = delays[Math.min(attempt, delays.length - 1)];
    attempt += 1;
    timer = setTimeout(() => void start(), delay);
  }

  async function start(): Promise<void> {
    if (stopped) return;
    try {
      await connection.start();
      if (stopped) {
        await connection.stop();
        return;
      }
      attempt = 0;
      onState('connected');
    } catch (error) {
      if (stopped) return;
      const failure = interpretHubFailure(error);
      if (failure.kind === 'unavailable') onState('unavailable', failure.message);
      else if (failure.kind === 'unauthorized' || failure.kind === 'token-expired') onState('unauthorized', failure.message);
      else {
        onState('error', failure.message);
        schedule();
      }
    }
  }

  onState('connecting');
  void start();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (connection.state !== HubConnectionState.Disconnected) await connection.stop().catch(() => undefined);
      onState('idle');
    },
  };
}
