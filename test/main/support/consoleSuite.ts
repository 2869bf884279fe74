import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { SvcEvent } from '../../../server/src/contracts/events.js';
import { ConsoleServices, type ConsoleServicesOptions } from '../../../src/main/ConsoleServices.js';
import type { FailureNotification } from '../../../src/main/notifications/FailureNotifier.js';
import { lateBound } from '../../fixtures/lateBound.js';
import { makeTempDir } from './tempDir.js';

/** ConsoleServices options other than the user-data folder and the two OS sinks (recorded). */
export type ConsoleOptions = Omit<ConsoleServicesOptions, 'userDataDir' | 'notifications' | 'badge'>;

export interface RecordingConsole {
  services: ConsoleServices;
  /** Every desktop notification shown, in order. */
  notifications: FailureNotification[];
  /** Every tray/dock count set, in order. */
  badge: number[];
  /** Every engine event main forwarded to the renderer, with its environment id. */
  events: Array<{ env: string; event: SvcEvent }>;
}

/** The real main-process services over `userDataDir`, with notifications, badge and engine events recorded. */
export async function createConsole(userDataDir: string, options: ConsoleOptions = {}): Promise<RecordingConsole> {
  const notifications: FailureNotification[] = [];
  const badge: number[] = [];
  const events: Array<{ env: string; event: SvcEvent }> = [];
  const services = await ConsoleServices.create({
    userDataDir,
    notifications: { show: (n) => notifications.push(n) },
    badge: { setUnreadCount: (c) => badge.push(c) },
    ...options,
  });
  services.onEvent((e) => e.type === 'svcEvent' && events.push({ env: e.environmentId, event: e.event }));
  return { services, notifications, badge, events };
}

/** A server an environment points at: a monitoring host (close) or a demo process (stop). */
export type SuiteHost = { baseUrl: string; close(): Promise<void> } | { baseUrl: string; stop(): Promise<void> };

export interface ConsoleSuite<H extends Record<string, SuiteHost>> extends RecordingConsole {
  /** The temp folder of the block (host databases, user data). */
  readonly dir: string;
  /** The hosts `start` returned, by name. */
  readonly hosts: H;
}

export interface ConsoleSuiteSetup<H extends Record<string, SuiteHost>> {
  /** Starts the block's hosts in `dir`. */
  start(dir: string): Promise<H>;
  /** Folder name of the console's user data under `dir`. */
  userData: string;
  console?: ConsoleOptions;
  /** beforeAll timeout. */
  timeoutMs?: number;
}

/**
 * For the describe block it is called in: a temp folder, the hosts `start` returns and one
 * recording console over `<dir>/<userData>`; after the block the console is disposed, the hosts
 * stopped and the folder removed. The returned object reads the live values (available from
 * the tests and later hooks on).
 */
export function useConsoleSuite<H extends Record<string, SuiteHost>>(setup: ConsoleSuiteSetup<H>): ConsoleSuite<H> {
  let state: ConsoleSuite<H> | undefined;
  let dir: { dir: string; cleanup: () => Promise<void> } | undefined;
  let hosts: SuiteHost[] = [];

  beforeAll(async () => {
    dir = await makeTempDir();
    const started = await setup.start(dir.dir);
    hosts = Object.values(started);
    const recording = await createConsole(join(dir.dir, setup.userData), setup.console);
    state = { ...recording, dir: dir.dir, hosts: started };
  }, setup.timeoutMs);

  afterAll(async () => {
    await state?.services.dispose();
    await Promise.all(hosts.map((h) => ('close' in h ? h.close() : h.stop())));
    await dir?.cleanup();
  });

  return lateBound(() => state, 'the console suite');
}
