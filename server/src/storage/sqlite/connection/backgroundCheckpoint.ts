import type { Database } from 'better-sqlite3';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** How often the checkpoint thread copies what the WAL holds into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** The thread starts once the WAL file has reached this size (a store that writes little never needs it). */
export const START_AT_WAL_BYTES = 1024 * 1024;
/**
 * How often the WAL file's size is looked at until the thread runs. Well under the time a busy
 * writer takes from START_AT_WAL_BYTES to its own autocheckpoint (1000 pages, 4 MB): at 1 s the
 * writer of a new store under load checkpointed once itself first, a stall of tens of ms.
 */
const WATCH_INTERVAL_MS = 100;
/** SQLite's own default: the writer checkpoints itself after this many WAL pages. */
const INLINE_AUTOCHECKPOINT_PAGES = 1000;
/** How long closing waits for the thread to close its connection. */
const CLOSE_WAIT_MS = 2000;

/**
 * The checkpoint thread: its own connection to the file, a PASSIVE checkpoint on an interval.
 * PASSIVE never waits for a lock: frames a reader still needs stay for the next round, and the
 * writer goes on appending meanwhile. It says 'ready' once its connection is open; on 'close' it
 * closes the connection and flips the shared flag the closing thread waits on. CommonJS text (an
 * eval worker), so that it runs the same from the TypeScript sources and from the built package.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const closed = new Int32Array(workerData.closed);
const db = new Database(workerData.file, { fileMustExist: true });
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  Atomics.store(closed, 0, 1);
  Atomics.notify(closed, 0);
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export interface BackgroundCheckpoint {
  /** Ends the thread, its connection closed first (call before the writer's connection closes). */
  stop(): void;
}

/**
 * Moves WAL checkpoints off the writer's thread. A checkpoint copies every page written since
 * the last one into the database file and syncs it: on the writer's connection (SQLite's default,
 * every 1000 pages) that pauses the event loop for tens of milliseconds every few seconds of heavy
 * writing, and every API request of that moment waits. Once the WAL has grown past
 * START_AT_WAL_BYTES, a worker thread checkpoints every CHECKPOINT_INTERVAL_MS and the writer's
 * connection stops checkpointing itself. Should the thread fail, the writer checkpoints itself
 * again as SQLite does by default, so the WAL never grows without bound.
 */
export function startBackgroundCheckpoint(db: Database, file: string, onError: (err: unknown) => void): BackgroundCheckpoint {
  let worker: Worker | undefined;
  let closedFlag: Int32Array | undefined;
  let stopped = false;
  let failed = false;

  const inline = (err: unknown) => {
    if (stopped || failed || !db.open) return;
    failed = true;
    db.pragma(`wal_autocheckpoint = ${INLINE_AUTOCHECKPOINT_PAGES}`);
    onError(err);
  };

  const start = () => {
    const shared = new SharedArrayBuffer(4);
    closedFlag = new Int32Array(shared);
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS, closed: shared } });
    worker.unref();
    worker.once('message', () => {
      if (!stopped && db.open) db.pragma('wal_autocheckpoint = 0');
    });
    worker.on('error', inline);
    worker.on('exit', (code) => inline(new Error(`The WAL checkpoint thread of ${file} ended (exit code ${code}); the writer checkpoints itself again`)));
  };

  const watch = setInterval(() => {
    let size = 0;
    try {
      size = statSync(`${file}-wal`).size;
    } catch {
      return; // no WAL file (yet)
    }
    if (size < START_AT_WAL_BYTES) return;
    clearInterval(watch);
    start();
  }, WATCH_INTERVAL_MS);
  watch.unref();

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(watch);
      if (worker === undefined || closedFlag === undefined) return;
      worker.postMessage('close');
      // Synchronous on purpose: the storage's close() is, and the last connection to close
      // should be the writer's (it then removes the WAL file).
      Atomics.wait(closedFlag, 0, 0, CLOSE_WAIT_MS);
      void worker.terminate();
    },
  };
}
