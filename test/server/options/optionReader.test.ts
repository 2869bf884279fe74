import { describe, expect, it } from 'vitest';
import { helpText } from '../../../server/src/cli/help.js';
import { CLI_OPTION_KINDS, resolveServeSettings } from '../../../server/src/cli/serveSettings.js';
import { createHub } from '../../../server/src/hub/createHub.js';
import { MONITORING_OPTIONS, resolveOptions, type MonitoringOptionSpec } from '../../../server/src/monitoring/options.js';
import { OptionError } from '../../../server/src/options/OptionError.js';
import { OptionReader } from '../../../server/src/options/OptionReader.js';
import { openSqliteStorage } from '../../../server/src/storage/sqlite/openSqliteStorage.js';

/** The thrown error, for its fields. */
function caught(run: () => unknown): OptionError {
  try {
    run();
  } catch (err) {
    if (err instanceof OptionError) return err;
    throw err;
  }
  throw new Error('nothing was thrown');
}

describe('one option reader: kinds, one error naming the owner and the option', () => {
  it('reads each kind with its fallback and refuses anything else', () => {
    const read = new OptionReader('demo', { on: true, name: 'x', n: 3, list: [' a ', '', 'b'], pick: 'B' }, ['on', 'name', 'n', 'list', 'pick', 'absent']);
    expect(read.boolean('on', false)).toBe(true);
    expect(read.boolean('absent', true)).toBe(true);
    expect(read.string('name', 'd')).toBe('x');
    expect(read.integer('n', 0, { min: 1, max: 5 })).toBe(3);
    expect(read.strings('list')).toEqual(['a', 'b']);
    expect(read.oneOf('pick', ['A', 'B'] as const, 'A')).toBe('B');
    expect(read.fn('absent')).toBeNull();
    expect(caught(() => read.integer('n', 0, { min: 4 }))).toMatchObject({ owner: 'demo', option: 'n', message: 'demo: option "n" must be an integer ≥ 4 (got 3)' });
    expect(caught(() => read.boolean('name', false)).message).toBe('demo: option "name" must be a boolean');
    expect(caught(() => new OptionReader('demo', { typo: 1 }, ['known'])).message).toBe('demo: unknown option "typo"');
    expect(caught(() => new OptionReader('demo', 'nope')).message).toBe('demo: option "options" must be an object');
  });

  it('every owner throws it: monitoring, hub, storage and the CLI', () => {
    expect(caught(() => resolveOptions({ enableUI: 'yes' as never }))).toMatchObject({ owner: 'createMonitoring', option: 'enableUI' });
    expect(caught(() => createHub({ path: '/hub', access: () => ({ ok: true }), maxMessageBytes: 0 }))).toMatchObject({ owner: 'createHub', option: 'maxMessageBytes' });
    expect(caught(() => openSqliteStorage({ file: ':memory:', busyTimeoutMs: -1 }))).toMatchObject({ owner: 'openSqliteStorage', option: 'busyTimeoutMs' });
    const cli = caught(() => resolveServeSettings(['--event-debounce-ms', 'soon'], {}, { port: 0 }));
    expect(cli).toMatchObject({ owner: 'svc-monitor-server (command line)', option: 'eventDebounceMs' });
    expect(caught(() => resolveServeSettings([], { SVC_MONITOR_ENABLE_CORS: 'perhaps' }, { port: 0 })).owner).toBe('svc-monitor-server (environment variable SVC_MONITOR_ENABLE_CORS)');
  });

  it('nested and CLI-only values name their full path and where they came from', async () => {
    expect(caught(() => resolveOptions({ loginRateLimit: { limit: 0, windowMs: 1000 } }))).toMatchObject({
      owner: 'createMonitoring',
      option: 'loginRateLimit.limit',
      message: 'createMonitoring: option "loginRateLimit.limit" must be an integer ≥ 1 (got 0)',
    });
    expect(caught(() => resolveOptions({ loginRateLimit: { limit: 5 } as never })).message).toBe('createMonitoring: option "loginRateLimit.windowMs" is required in a custom login limit');
    expect(caught(() => resolveOptions({ loginRateLimit: { limit: 5, windowMs: 9, burst: 1 } as never })).message).toBe('createMonitoring: unknown option "loginRateLimit.burst"');
    expect(caught(() => resolveServeSettings(['--hub-max-connections', '2.5'], {}, { port: 0 })).message).toBe(
      'svc-monitor-server (command line): option "hubMaxConnections" must be an integer (got "2.5")',
    );
    expect(caught(() => resolveServeSettings(['--port', '70000'], {}, { port: 0 })).message).toBe('svc-monitor-server: option "port" must be an integer in 0..65535 (got 70000)');
    const { openPostgresStorage } = await import('../../../server/src/storage/postgres/openPostgresStorage.js');
    const pg = await openPostgresStorage({ connectionString: 'postgres://127.0.0.1:5432/none', poolSize: 0 }).then(
      () => new Error('nothing was thrown'),
      (e: unknown) => e,
    );
    expect(pg).toBeInstanceOf(OptionError);
    expect(pg).toMatchObject({ owner: 'openPostgresStorage', option: 'poolSize' });
  });
});

describe('the monitoring options table', () => {
  it('drives --help: every option a CLI can set is listed with its description, code-only ones are not', () => {
    const help = helpText();
    for (const [name, spec] of Object.entries(MONITORING_OPTIONS)) {
      if (spec.kind === 'function' || spec.kind === 'object') {
        expect(CLI_OPTION_KINDS).not.toHaveProperty(name);
      } else {
        expect(help, name).toContain(spec.description);
      }
    }
    expect(help).not.toContain('--now');
    expect(help).not.toContain('--logger');
  });

  it('writes each default once: the resolver applies the value --help states', () => {
    const help = helpText();
    const resolved = resolveOptions({ jwtSecret: 'x'.repeat(32), logger: { info: () => undefined, warn: () => undefined } }) as unknown as Record<string, unknown>;
    let plain = 0;
    for (const [name, spec] of Object.entries(MONITORING_OPTIONS) as [string, MonitoringOptionSpec][]) {
      if (spec.default === undefined || spec.defaultText !== undefined || name === 'jwtSecret') continue;
      plain += 1;
      expect(resolved[name], name).toEqual(spec.default);
      if (spec.kind !== 'function') expect(help, name).toContain(`${spec.description} (default ${spec.default === null ? 'none' : String(spec.default)})`);
    }
    expect(plain).toBeGreaterThan(15);
    expect(resolved.trustedProxies).toEqual([...MONITORING_OPTIONS.trustedProxies.default]);
    expect(help).toContain('(default loopback)');
  });

  it('drives the CLI coercion: text from flags and the environment becomes the kind the table names', () => {
    const s = resolveServeSettings(
      ['--event-debounce-ms', '250', '--enable-cors=false', '--allowed-ip-addresses', '127.0.0.1, ::1', '--login-rate-limit={"limit":3,"windowMs":1000}'],
      { SVC_MONITOR_HUB_MAX_CONNECTIONS: '7' },
      { port: 0 },
    );
    expect(s.options).toEqual({
      eventDebounceMs: 250,
      enableCors: false,
      allowedIpAddresses: ['127.0.0.1', '::1'],
      loginRateLimit: { limit: 3, windowMs: 1000 },
      hubMaxConnections: 7,
    });
    // The coerced values pass the monitoring's own reading unchanged.
    expect(resolveOptions({ ...s.options, logger: { info: () => {}, warn: () => {} } })).toMatchObject({ eventDebounceMs: 250, hubMaxConnections: 7 });
  });
});

describe('the engine refuses options with the same error', () => {
  it('createEngine names the owner and the option, nested ones by their path', async () => {
    const { createEngine } = await import('../../../server/src/engine/Engine.js');
    const storage = openSqliteStorage({ file: ':memory:' });
    try {
      expect(caught(() => createEngine({ storage, queues: { mail: { concurrency: 0 } } }))).toMatchObject({
        owner: 'createEngine',
        option: 'queues.mail.concurrency',
        message: 'createEngine: option "queues.mail.concurrency" must be an integer ≥ 1 (got 0)',
      });
      expect(caught(() => createEngine({ storage, queues: { mail: { workers: 2 } } } as never)).message).toBe('createEngine: unknown option "queues.mail.workers"');
      expect(caught(() => createEngine({ storage, colour: 'red' } as never))).toMatchObject({ owner: 'createEngine', option: 'colour' });
      expect(caught(() => createEngine({ storage, retry: { jitter: 2 } }))).toMatchObject({
        owner: 'createEngine',
        option: 'retry.jitter',
        message: 'createEngine: option "retry.jitter" must be a number in 0..1 (got 2)',
      });
      expect(caught(() => createEngine({ storage, pollIntervalMs: '1s' } as never)).message).toBe('createEngine: option "pollIntervalMs" must be an integer ≥ 1 (got "1s")');
      expect(caught(() => createEngine({} as never))).toMatchObject({ owner: 'createEngine', option: 'storage' });
      expect(caught(() => createEngine(null as never)).message).toBe('createEngine: option "options" must be an object');
    } finally {
      storage.close();
    }
  });

  it('dispatch, recurring, handle and stop each name themselves and the option', async () => {
    const { createEngine } = await import('../../../server/src/engine/Engine.js');
    const storage = openSqliteStorage({ file: ':memory:' });
    const engine = createEngine({ storage });
    try {
      engine.handle('Opt.Job', () => undefined);
      const rejected = async (p: Promise<unknown>) => {
        const err = await p.then(() => new Error('nothing was thrown'), (e: unknown) => e);
        if (err instanceof OptionError) return err;
        throw err;
      };
      expect(await rejected(engine.dispatch('Opt.Job', {}, { timeoutMs: 0 }))).toMatchObject({
        owner: 'dispatch',
        option: 'timeoutMs',
        message: 'dispatch: option "timeoutMs" must be an integer ≥ 1 (got 0)',
      });
      expect(await rejected(engine.dispatch('Opt.Job', {}, { runAt: 'soon' }))).toMatchObject({ owner: 'dispatch', option: 'runAt' });
      expect(await rejected(engine.dispatch('Opt.Job', {}, { delayMs: -1 }))).toMatchObject({ owner: 'dispatch', option: 'delayMs' });
      expect(await rejected(engine.dispatch('Opt.Job', {}, { retry: { backoff: 'linear' as never } }))).toMatchObject({
        owner: 'dispatch',
        option: 'retry.backoff',
        message: 'dispatch: option "retry.backoff" must be one of fixed, exponential',
      });
      expect(await rejected(engine.dispatch('Opt.Job', {}, 'fast' as never))).toMatchObject({ owner: 'dispatch', option: 'options' });
      expect(await rejected(engine.recurring('Opt.Job', {}, { every: '1m', maxRuns: 0 }))).toMatchObject({ owner: 'recurring', option: 'maxRuns' });
      expect(await rejected(engine.recurring('Opt.Job', {}, { every: '1m', colour: 'red' } as never))).toMatchObject({ owner: 'recurring', option: 'colour' });
      expect(caught(() => engine.handle('Opt.Other', () => undefined, { rateLimit: { limit: 1, windowMs: 0 } }))).toMatchObject({
        owner: 'handle("Opt.Other")',
        option: 'rateLimit.windowMs',
      });
      expect(caught(() => engine.handle('Opt.Other', () => undefined, { rateLimit: { limit: 1, burst: 2 } } as never)).message).toBe(
        'handle("Opt.Other"): unknown option "rateLimit.burst"',
      );
      expect(caught(() => engine.handle('Opt.Other', () => undefined, { retry: { attempts: 1.5 } }))).toMatchObject({ option: 'retry.attempts' });
      expect(await rejected(engine.stop({ graceMs: -1 }))).toMatchObject({ owner: 'stop', option: 'graceMs' });
      expect(await rejected(engine.stop({ writeTimeoutMs: 1.5 }))).toMatchObject({ owner: 'stop', option: 'writeTimeoutMs' });
    } finally {
      await engine.stop({ graceMs: 0 });
      storage.close();
    }
  });
});
