import { HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import type { SvcEvent } from '../../../../server/src/contracts/events.js';
import type { LiveConnection, LiveState } from '../Platform.js';

export interface WebLiveOptions {
  hubUrl: string;
  getToken: () => string | undefined;
  /** Delays between attempts when the first connection fails (not 404/401). */
  startRetryDelaysMs?: number[];
}

/** Classifies a failed start: the hub is absent (standalone, 404), refuses us (401), or is unreachable. */
export function classifyStartError(error: unknown): 'unavailable' | 'unauthorized' | 'retry' {
  const text = error instanceof Error ? `${error.message}` : String(error);
  const status = (error as { statusCode?: unknown })?.statusCode;
  if (status === 404 || /Status code '404'|\b404\b|Not Found/i.test(text)) return 'unavailable';
  if (status === 401 || /Status code '401'|\b401\b|Unauthorized/i.test(text)) return 'unauthorized';
  return 'retry';
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
    // Automatic reconnect gave up, or the server closed without allowing it (e.g. token expired).
    if (error && /expired/i.test(error.message)) {
      onState('unauthorized', error.message);
      return;
    }
    onState('reconnecting', error?.message);
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
      const kind = classifyStartError(error);
      const detail = error instanceof Error ? error.message : String(error);
      if (kind === 'unavailable') onState('unavailable', detail);
      else if (kind === 'unauthorized') onState('unauthorized', detail);
      else {
        onState('reconnecting', detail);
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
      onState('disconnected');
    },
  };
}
