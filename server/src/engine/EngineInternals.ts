import type { AuditLevel, SvcEvent } from '../contracts/index.js';
import type { EngineStore } from '../storage/EngineStore.js';

/**
 * What the engine lends to its parts that are not the worker loop (the durable schedule
 * manager and materializer). Owned by the engine; read-only for the parts.
 */
export interface EngineInternals {
  /** The store the engine writes to; the parts use only its schedule operations. */
  readonly store: EngineStore;
  /** The engine clock (ms since epoch); tests may inject one. */
  now(): number;
  /** Emits an engine event to `engine.on('event')` listeners. */
  emit(event: SvcEvent): void;
  /** Nudges the dispatcher: new rows may be due. */
  wake(): void;
  /**
   * Runs `tick` every `intervalMs` while the engine is started (and once right after start).
   * A tick that throws (or rejects) is reported and retried at the next interval; it never stops
   * the engine. A tick still running when the next one is due is not started twice.
   */
  addTicker(name: string, tick: (nowMs: number) => void | Promise<unknown>, intervalMs: number): void;
  /** Reports an error of a part (the engine's onError). */
  reportError(error: unknown, where: string): void;
  readonly defaultAuditLevel: AuditLevel;
  /** Full handler name registered for a type, or undefined when the type has no handler. */
  handlerNameOf(type: string): string | undefined;
  /** The queue a task naming `queue` lands in (unknown → 'default'). */
  resolveQueue(queue: string | undefined): string;
  /** Whether the engine is started. */
  isRunning(): boolean;
}
