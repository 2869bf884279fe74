import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { SvcEvent, SvcEventKind } from '../../../server/src/contracts/events.js';
import { POLLING_LIVE_STATES, type LiveState } from '../../../server/src/contracts/liveConnection.js';
import type { LiveConnection } from '../platform/Platform.js';
import { requirePlatform } from './session.js';

export interface FeedEvent extends SvcEvent {
  /** Local sequence number (stable key). */
  seq: number;
  receivedAt: number;
}

export interface LiveStartOptions {
  debounceMs: number;
  pollIntervalMs?: number;
}

export const FEED_LIMIT = 500;
export const DEFAULT_POLL_INTERVAL_MS = 5_000;

/** States in which no events arrive, so the dashboard refreshes by polling instead. */
const POLLING_STATES: ReadonlySet<LiveState> = new Set(POLLING_LIVE_STATES);

/**
 * The live side: the hub connection and its state, the feed of received events, and the
 * cache generation (`version`) that pages watch to refetch. Events invalidate at most once per
 * `eventDebounceMs` (the first event of a burst opens a window; the refresh happens when it
 * closes, so a steady stream still refreshes every window). Without a hub, `version` is bumped
 * by polling at `pollIntervalMs`.
 */
export const useLiveStore = defineStore('live', () => {
  const platform = requirePlatform();
  const state = ref<LiveState>('idle');
  const detail = ref<string | undefined>(undefined);
  const events = shallowRef<FeedEvent[]>([]);
  const version = ref(0);
  const lastRefreshAt = ref<number | null>(null);
  const nextPollAt = ref<number | null>(null);
  const debounceMs = ref(1_000);
  const pollIntervalMs = ref(DEFAULT_POLL_INTERVAL_MS);
  const receivedCount = ref(0);

  let connection: LiveConnection | null = null;
  let debounceTimer: ReturnType<typeof setTimeout> | undefined;
  let pollTimer: ReturnType<typeof setInterval> | undefined;
  let seq = 0;
  let everConnected = false;
  const running = ref(false);

  const polling = computed(() => running.value && POLLING_STATES.has(state.value));
  const counts = computed(() => {
    const byKind: Partial<Record<SvcEventKind, number>> = {};
    for (const e of events.value) byKind[e.kind] = (byKind[e.kind] ?? 0) + 1;
    return byKind;
  });

  function invalidate(): void {
    version.value += 1;
    lastRefreshAt.value = Date.now();
  }

  function scheduleInvalidation(): void {
    if (debounceTimer !== undefined) return;
    debounceTimer = setTimeout(() => {
      debounceTimer = undefined;
      invalidate();
    }, debounceMs.value);
  }

  function receive(event: SvcEvent): void {
    seq += 1;
    receivedCount.value += 1;
    const entry: FeedEvent = { ...event, seq, receivedAt: Date.now() };
    const next = [entry, ...events.value];
    if (next.length > FEED_LIMIT) next.length = FEED_LIMIT;
    events.value = next;
    if (event.kind === 'Failed') platform.notify('Task failed', `${event.taskType}: ${event.message}`);
    scheduleInvalidation();
  }

  function updatePolling(): void {
    const shouldPoll = polling.value;
    if (shouldPoll && pollTimer === undefined) {
      nextPollAt.value = Date.now() + pollIntervalMs.value;
      pollTimer = setInterval(() => {
        nextPollAt.value = Date.now() + pollIntervalMs.value;
        invalidate();
      }, pollIntervalMs.value);
    } else if (!shouldPoll && pollTimer !== undefined) {
      clearInterval(pollTimer);
      pollTimer = undefined;
      nextPollAt.value = null;
    }
  }

  function setState(next: LiveState, why?: string): void {
    const wasConnected = state.value === 'connected';
    state.value = next;
    detail.value = why;
    // Coming back after a gap (not the first connect): whatever happened meanwhile was missed, refresh once.
    if (next === 'connected' && !wasConnected && running.value && everConnected) invalidate();
    if (next === 'connected') everConnected = true;
    updatePolling();
  }

  function start(options: LiveStartOptions): void {
    stop();
    everConnected = false;
    running.value = true;
    debounceMs.value = Math.max(0, options.debounceMs);
    pollIntervalMs.value = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    connection = platform.connectLive(receive, setState);
  }

  function stop(): void {
    running.value = false;
    if (debounceTimer !== undefined) clearTimeout(debounceTimer);
    debounceTimer = undefined;
    const current = connection;
    connection = null;
    if (current) void current.stop();
    state.value = 'idle';
    updatePolling();
  }

  function clearFeed(): void {
    events.value = [];
  }

  return {
    state,
    detail,
    events,
    version,
    lastRefreshAt,
    nextPollAt,
    debounceMs,
    pollIntervalMs,
    polling,
    counts,
    receivedCount,
    start,
    stop,
    receive,
    invalidate,
    clearFeed,
  };
});
