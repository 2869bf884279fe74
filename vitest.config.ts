import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';
import type { TestProjectInlineConfiguration } from 'vitest/config';
import { filesNotOn } from './test/fixtures/testBackends.js';

// The server-side projects share one module graph per worker (isolate: false): a worker loads
// the server sources once and runs file after file on them, instead of loading them again for
// every file (most of the suite's CPU time went to that). Fixtures that keep per-file state reset
// it after each file (test/fixtures/fileScope.ts, run by the setup file below). Files that
// replace a module of the server (vi.mock) need a graph of their own: they run in a twin
// project, "<name>-isolated", with the default isolation. (The includes are `folder/**/*.test.ts`.)
const FRESH_GRAPH = ['test/server/engine/internals.test.ts'];
/** The desktop main-process files that replace a module (vi.mock): they run in main-isolated. */
const MAIN_WITH_MOCKS = ['test/main/electronFirstLaunch.test.ts', 'test/main/electronWiring.test.ts', 'test/main/packagedRendererUrl.test.ts', 'test/main/preloadBridge.test.ts', 'test/main/restartToUpdate.test.ts'];
/** The credential vault against the run's real Secret Service: the keychain project, after every other file. */
const KEYCHAIN_FILE = 'test/main/credentialVault.test.ts';

/** The folders whose files run over every engine store, and those that run over every monitoring store. */
const ENGINE_SUITES = ['test/server/engine', 'test/server/schedules'];
const MONITORING_SUITES = ['test/server/monitoring', 'test/server/power', 'test/server/hub'];

function sharedGraph(project: { name: string; include: string[]; exclude?: string[] } & Record<string, unknown>): TestProjectInlineConfiguration[] {
  const { name, include, exclude = [], ...rest } = project;
  const common = { environment: 'node', pool: 'threads', setupFiles: ['./test/fixtures/fileScopeSetup.ts'], ...rest } as const;
  const shared: TestProjectInlineConfiguration = { extends: true, test: { ...common, name, include, exclude: [...exclude, ...FRESH_GRAPH], isolate: false } };
  const fresh = FRESH_GRAPH.filter((file) => include.some((glob) => file.startsWith(glob.slice(0, glob.indexOf('**')))) && !exclude.includes(file));
  if (fresh.length === 0) return [shared];
  return [shared, { extends: true, test: { ...common, name: `${name}-isolated`, include: fresh } }];
}

// One config, four projects: server (engine, storage, monitoring, hub), main (desktop
// main-process services), renderer (Vue components and stores), e2e (real browser).
export default defineConfig({
  plugins: [vue()],
  test: {
    reporters: ['default', './test/fixtures/summaryReporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll gives up after 1 s by default: a page or a session that needs a network round
    // trip and a render can take longer than that on a busy machine. Every poll waits for its
    // value up to 10 s (as the desktop suites' waitFor calls do); a value that never comes still fails.
    expect: { poll: { timeout: 10_000 } },
    // Transformed modules are kept on disk (node_modules/.experimental-vitest-cache, keyed by each
    // file's content and the config) and shared by the projects: the server sources are
    // transformed once for all eight server-side projects, and not again on the next run.
    experimental: { fsModuleCache: true },
    // The run goes in four groups, one after the other (sequence.groupOrder), each with as many
    // files at a time as keeps the two cores busy without queueing on them:
    //   0. the engine suites over the other stores, the monitoring suites on PostgreSQL, main and
    //      renderer: 3 at a time (they wait on PostgreSQL and on child processes);
    //   1. server: 4 at a time (its longest files mostly wait: npm pack and install, child
    //      engines on PostgreSQL, hub keep-alive and token-expiry timers);
    //   2. e2e: 2 at a time (Chromium keeps both cores busy; more only lengthens each file);
    //   3. keychain (below).
    // Measured (whole run, vitest's own figure, alternate A/B pairs in one sitting): one group of
    // 2 at a time 152 and 154 s, these groups 135 and 134 s. Not taken: 4 at a time in groups 0
    // and 1 (every extra worker loads its own module graph), server at 5, e2e at 3 or in the
    // server's group (CPU-bound there).
    // The server-side projects run in worker threads rather than child processes (less CPU time,
    // see sharedGraph above); main, renderer and e2e keep processes (Electron-like globals,
    // keytar, browsers).
    maxWorkers: 3,
    projects: [
      ...sharedGraph({ name: 'server', include: ['test/server/**/*.test.ts'], exclude: filesNotOn('sqlite', ['test/server']), maxWorkers: 4, sequence: { groupOrder: 1 } }),
      // The engine and schedule suites again, over a store whose every call resolves on a later tick,
      // and on PostgreSQL (a database per test file, a schema per store: test/fixtures/server/storeUnderTest.ts);
      // the monitoring suites on PostgreSQL (their stores come from test/fixtures/server/monitoredStore.ts). Each
      // file that runs on fewer stores says so, and why, in its `// @backends` line (test/fixtures/testBackends.ts).
      ...sharedGraph({
        name: 'engine-deferred-store',
        include: ENGINE_SUITES.map((folder) => `${folder}/**/*.test.ts`),
        exclude: filesNotOn('deferred', ENGINE_SUITES),
        env: { SVC_STORE_WRAPPER: 'deferred' },
      }),
      ...sharedGraph({
        name: 'engine-postgres',
        include: ENGINE_SUITES.map((folder) => `${folder}/**/*.test.ts`),
        exclude: filesNotOn('postgres', ENGINE_SUITES),
        env: { SVC_STORE: 'postgres' },
        // A template database with migrated schemas, copied for each file (test/fixtures/server/migratedSchemas.ts).
        globalSetup: ['./test/fixtures/server/migratedSchemas.ts'],
      }),
      ...sharedGraph({
        name: 'monitoring-postgres',
        include: MONITORING_SUITES.map((folder) => `${folder}/**/*.test.ts`),
        exclude: filesNotOn('postgres', MONITORING_SUITES),
        env: { SVC_STORE: 'postgres' },
        // No migrated-schema template here (unlike engine-postgres): these files open one to three
        // stores each, so copying a template saves nothing, and building it delayed the project
        // (8 files: 47 s without it, 79 and 86 s with it, measured in one sitting).
      }),
      // main and renderer also keep one module graph per worker process (isolate: false): most of
      // their files run in well under a second, and loading the modules again for each file took
      // longer than the tests (main 28.8 → 22.5 s, renderer 12.8 → 6.3 s alone). Their sources keep
      // no module-level state; the files that replace a module (vi.mock) run in main-isolated.
      {
        extends: true,
        test: {
          name: 'main',
          environment: 'node',
          include: ['test/main/**/*.test.ts'],
          exclude: [...MAIN_WITH_MOCKS, KEYCHAIN_FILE],
          isolate: false,
        },
      },
      // The keychain tests clear and prune every account of the service svc-monitor in the run's one
      // Secret Service, which the packaged-app test also writes to (its app logs in). They run after
      // every other file, as a group of their own, so that neither sees the other's accounts.
      {
        extends: true,
        test: { name: 'keychain', environment: 'node', include: [KEYCHAIN_FILE], sequence: { groupOrder: 3 } },
      },
      {
        extends: true,
        test: {
          name: 'main-isolated',
          environment: 'node',
          include: MAIN_WITH_MOCKS,
        },
      },
      { extends: true, test: { name: 'renderer', environment: 'happy-dom', include: ['test/renderer/**/*.test.ts'], isolate: false } },
      // e2e: one module graph per worker process as well (its fixtures hold no per-file state: each
      // file starts its own demo servers and browser contexts; 56 → 52.5 s alone). The web dashboard
      // is brought up to date and the desktop bundles are built once per run, the latter in the
      // background while the other projects' files run (test/fixtures/buildOnce.ts);
      // one Chromium serves every file, a fresh browser context per page (test/fixtures/sharedChromium.ts).
      // Its files run two at a time, after every other project's (a file waiting for the desktop
      // build may wait up to the build's own time limit in its beforeAll).
      {
        extends: true,
        test: {
          name: 'e2e',
          environment: 'node',
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
          include: ['test/e2e/**/*.test.ts'],
          hookTimeout: 300_000,
          globalSetup: ['./test/fixtures/buildOnce.ts', './test/fixtures/sharedChromium.ts'],
        },
      },
    ],
  },
});
