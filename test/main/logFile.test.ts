import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogFile } from '../../src/main/logging/LogFile.js';
import { redactSecrets } from '../../src/main/logging/redactSecrets.js';
import { createTempDir } from '../fixtures/main/tempDir.js';

const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJvcHMiLCJleHAiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXZhbHVl';

describe('the console log file', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await createTempDir()));
  afterEach(() => cleanup());

  it('never writes tokens or passwords (hub URLs, headers, JSON bodies, key=value)', async () => {
    const log = new LogFile(join(dir, 'logs'), { now: () => new Date('2026-11-23T12:00:00Z') });
    log.warn(`hub prd: Failed to start the transport 'WebSockets': Error: connect to ws://h/svc-monitoring/hub?id=abc&access_token=${jwt} refused`);
    log.error('login', new Error(`POST /auth/login {"username":"ops","password":"s3cr3t!"} Authorization: Bearer ${jwt}`));
    log.info('magic link token=m4gic-link-token; password: hunter2');
    const text = await readFile(log.path, 'utf8');
    for (const secret of [jwt, 's3cr3t!', 'm4gic-link-token', 'hunter2', 'eyJ']) expect(text).not.toContain(secret);
    expect(text).toContain('2026-11-23T12:00:00.000Z WARN hub prd: Failed to start the transport');
    expect(text).toContain('id=abc&access_token=[redacted]');
    expect(text).toContain('"username":"ops"');
    expect(redactSecrets('nothing secret here: 42 tasks failed')).toBe('nothing secret here: 42 tasks failed');
  });

  it('rotates by size and keeps a fixed number of old files', async () => {
    const log = new LogFile(join(dir, 'logs'), { maxBytes: 200, keep: 2 });
    for (let i = 0; i < 40; i++) log.info(`line ${i} ${'x'.repeat(40)}`);
    const files = (await readdir(join(dir, 'logs'))).sort();
    expect(files).toEqual(['main.log', 'main.log.1', 'main.log.2']);
    for (const f of files) expect((await readFile(join(dir, 'logs', f))).length).toBeLessThanOrEqual(200);
    expect(await readFile(join(dir, 'logs/main.log'), 'utf8')).toContain('line 39');
    // A reopened log appends to the current file.
    new LogFile(join(dir, 'logs'), { maxBytes: 200, keep: 2 }).info('after restart');
    expect(await readFile(join(dir, 'logs/main.log'), 'utf8')).toContain('after restart');
  });
});
