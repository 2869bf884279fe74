import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FEED_LIMIT, useLiveStore } from '../../src/renderer/stores/live.js';
import { createFakePlatform, svcEvent } from './fakePlatform.js';
import { piniaWith } from './harness.js';

describe('live store', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a burst of events invalidates once, eventDebounceMs after the first', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 1000 });
    platform.live.setState('connected');
    const v0 = live.version;
    for (let i = 0; i < 20; i += 1) {
      platform.live.emit(svcEvent('Completed'));
      vi.advanceTimersByTime(30);
    }
    expect(live.version).toBe(v0);
    vi.advanceTimersByTime(1000 - 20 * 30);
    expect(live.version).toBe(v0 + 1);
    vi.advanceTimersByTime(5000);
    expect(live.version).toBe(v0 + 1);
    expect(live.events).toHaveLength(20);
  });

  it('a steady stream still refreshes once per window (never starves)', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 500 });
    platform.live.setState('connected');
    const v0 = live.version;
    for (let i = 0; i < 40; i += 1) {
      platform.live.emit(svcEvent('Started'));
      vi.advanceTimersByTime(100);
    }
    expect(live.version - v0).toBeGreaterThanOrEqual(7);
    expect(live.version - v0).toBeLessThanOrEqual(8);
  });

  it('no hub (standalone) → polls at the visible interval; stops polling once connected', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 1000, pollIntervalMs: 2000 });
    platform.live.setState('unavailable', 'negotiate 404');
    expect(live.polling).toBe(true);
    expect(live.nextPollAt).not.toBeNull();
    const v0 = live.version;
    vi.advanceTimersByTime(6000);
    expect(live.version).toBe(v0 + 3);
    platform.live.setState('connected');
    expect(live.polling).toBe(false);
    const v1 = live.version;
    vi.advanceTimersByTime(10_000);
    expect(live.version).toBe(v1);
  });

  it('reconnecting polls meanwhile, and a reconnect refreshes once', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 1000, pollIntervalMs: 1000 });
    platform.live.setState('connected');
    platform.live.setState('reconnecting');
    const v0 = live.version;
    vi.advanceTimersByTime(2000);
    expect(live.version).toBe(v0 + 2);
    platform.live.setState('connected');
    expect(live.version).toBe(v0 + 3);
  });

  it('keeps at most FEED_LIMIT events, newest first; a failure notifies through the platform', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 1000 });
    for (let i = 0; i < FEED_LIMIT + 10; i += 1) platform.live.emit(svcEvent('Completed', `id-${i}`));
    platform.live.emit(svcEvent('Failed', 'last'));
    expect(live.events).toHaveLength(FEED_LIMIT);
    expect(live.events[0]?.taskId).toBe('last');
    expect(live.counts.Failed).toBe(1);
    expect(platform.notifications).toHaveLength(1);
  });

  it('stop closes the connection and stops polling', () => {
    const platform = createFakePlatform();
    piniaWith(platform);
    const live = useLiveStore();
    live.start({ debounceMs: 1000, pollIntervalMs: 1000 });
    platform.live.setState('unavailable');
    live.stop();
    expect(platform.live.stops).toBe(1);
    expect(live.state).toBe('idle');
    const v = live.version;
    vi.advanceTimersByTime(5000);
    expect(live.version).toBe(v);
  });
});
