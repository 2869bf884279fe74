import type { SvcEvent } from '../../../contracts/index.js';
import type { PostgresStorage } from '../PostgresStorage.js';

interface EventSource {
  on(event: 'event', listener: (e: SvcEvent) => void): unknown;
  off(event: 'event', listener: (e: SvcEvent) => void): unknown;
}

/**
 * Publishes an engine's events on the store's events channel, so that the hub of every process
 * on the store delivers them. Events are sent in batches (one NOTIFY statement per flush, at most
 * every `flushMs`), in the order the engine emitted them. Returns a function that stops
 * publishing after a last flush.
 */
export function publishEngineEvents(engine: EventSource, storage: PostgresStorage, flushMs = 10): () => Promise<void> {
  let buffer: SvcEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  const flush = () => {
    timer = undefined;
    const events = buffer;
    buffer = [];
    if (events.length === 0 || storage.closed) return flushing;
    flushing = flushing.then(() => storage.events.publish(events)).catch(() => undefined);
    return flushing;
  };
  const listener = (e: SvcEvent) => {
    buffer.push(e);
    timer ??= setTimeout(flush, flushMs);
  };
  engine.on('event', listener);
  return async () => {
    engine.off('event', listener);
    if (timer) clearTimeout(timer);
    await flush();
  };
}
