import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The server package as a host developer gets it: `npm pack` in server/ of a fresh copy of the
 * repository (no dist/, no web/: prepack builds both), the tarball installed into a new app with
 * `npm install <tarball>`, a strict TypeScript host compiled against it (no skipLibCheck), and the
 * README's host example run from the compiled output.
 */
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed with ${r.status ?? r.signal}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** Starts a host script (default: the compiled example); resolves with its base URL once it prints the dashboard line. */
function startHost(
  host: string,
  env: NodeJS.ProcessEnv,
  script = join(host, 'build', 'host.js'),
): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null>; output: () => string }> {
  const child = spawn(process.execPath, [script], { cwd: host, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host did not start:\n${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /dashboard on (http:\/\/127\.0\.0\.1:\d+)\/svc-monitoring/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, base: m[1]!, exited, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited with ${code}:\n${out}`));
    });
  });
}

describe('the packed server package installed in a host app', () => {
  const work = mkdtempSync(join(tmpdir(), 'svc-package-'));
  const clone = join(work, 'clone');
  const host = join(work, 'host');
  let tarball = '';
  let packed: string[] = [];

  beforeAll(() => {
    // A fresh copy of what the repository tracks: build output is not copied, dependencies are linked.
    mkdirSync(clone);
    const skip = new Set(['server/dist', 'server/web', 'server/node_modules']);
    for (const entry of ['server', 'src', 'scripts']) {
      cpSync(join(REPO, entry), join(clone, entry), { recursive: true, filter: (src) => !skip.has(relative(REPO, src).split('\\').join('/')) });
    }
    for (const file of ['package.json', 'tsconfig.json', 'vite.web.config.ts', 'README.md', 'LICENSE']) copyFileSync(join(REPO, file), join(clone, file));
    symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'), 'dir');

    const out = run('npm', ['pack', '--json', '--pack-destination', work], join(clone, 'server'), 180_000);
    // prepack's build output comes first on stdout (and may contain brackets); npm's JSON report is
    // the array that starts a line.
    const jsonStart = out.search(/^\[\s*\{/m);
    expect(jsonStart, `npm pack printed no JSON report:\n${out}`).toBeGreaterThanOrEqual(0);
    const info = JSON.parse(out.slice(jsonStart)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(work, info[0]!.filename);
    packed = info[0]!.files.map((f) => f.path);

    // The host app: its own dependencies, then the tarball, as `npm install <tarball>`. Install
    // scripts are skipped and better-sqlite3's compiled binary is taken from this checkout (the
    // same version, pinned by overrides): compiling it again would take minutes.
    const sqliteVersion = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
    mkdirSync(host);
    writeFileSync(
      join(host, 'package.json'),
      JSON.stringify({ name: 'host-app', private: true, type: 'module', dependencies: { express: '^5.1.0' }, devDependencies: { '@types/node': '^20.19.0' }, overrides: { 'better-sqlite3': sqliteVersion } }, null, 2),
    );
    run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', tarball], host, 180_000);
    const release = join(host, 'node_modules', 'better-sqlite3', 'build', 'Release');
    mkdirSync(release, { recursive: true });
    copyFileSync(join(REPO, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(release, 'better_sqlite3.node'));
  }, 400_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000);

  it('ships README, LICENSE, the built dashboard and the command; no sources; every source map carries its sources', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['README.md', 'LICENSE', 'package.json', 'web/index.html', 'vendor/scalar-standalone.js', 'dist/index.js', 'dist/index.d.ts', 'bin/svc-monitor-server.js']),
    );
    // The API reference's bundle travels inside the package: its ~300 dependencies are not installed.
    expect(existsSync(join(host, 'node_modules', '@scalar'))).toBe(false);
    expect(packed.filter((p) => p.startsWith('src/') || p.startsWith('scripts/'))).toEqual([]);
    const installed = join(host, 'node_modules', 'svc-monitor-server');
    const maps = walk(join(installed, 'dist')).filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    for (const map of maps) {
      const m = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourcesContent?: Array<string | null> };
      expect(m.sourcesContent?.length, map).toBe(m.sources.length);
      expect(m.sourcesContent?.every((s) => typeof s === 'string' && s.length > 0), map).toBe(true);
    }
  });

  it('a strict TypeScript host without skipLibCheck compiles against the package (the README examples)', () => {
    copyFileSync(join(REPO, 'examples', 'host.ts'), join(host, 'host.ts'));
    const packageReadme = readFileSync(join(host, 'node_modules', 'svc-monitor-server', 'README.md'), 'utf8');
    const snippet = /```ts\n([\s\S]*?)```/.exec(packageReadme)?.[1];
    expect(snippet).toBeDefined();
    writeFileSync(join(host, 'readmeHost.ts'), snippet!);
    writeFileSync(
      join(host, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, outDir: 'build', types: ['node'] },
        files: ['host.ts', 'readmeHost.ts'],
      }),
    );
    run(process.execPath, [TSC, '-p', 'tsconfig.json'], host, 120_000);
    expect(existsSync(join(host, 'build', 'host.js'))).toBe(true);
  }, 150_000);

  it('the host example runs: dashboard served, the task completes, a taken port fails clearly, Ctrl+C stops it', async () => {
    const env = { PORT: '0', DB_FILE: join(work, 'tasks.db'), JWT_SECRET: 'x'.repeat(48) };
    const first = await startHost(host, env);
    try {
      const page = await fetch(`${first.base}/svc-monitoring/`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('/svc-monitoring/assets/');
      expect(html).not.toContain('not built');

      const api = `${first.base}/svc-monitoring/api`;
      const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin' }) });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      let status: string | undefined;
      for (let i = 0; i < 100 && status !== 'Completed'; i++) {
        const page = (await (await fetch(`${api}/tasks?taskType=SendReceipt`, { headers: { authorization: `Bearer ${token}` } })).json()) as { items: Array<{ status: string }> };
        status = page.items[0]?.status;
        if (status !== 'Completed') await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe('Completed');

      // A second host on the same port says so and exits with 1.
      const port = new URL(first.base).port;
      const second = spawnSync(process.execPath, [join(host, 'build', 'host.js')], {
        cwd: host,
        env: { ...process.env, ...env, PORT: port, DB_FILE: join(work, 'second.db') },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(second.status).toBe(1);
      expect(second.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
      expect(second.stderr).toContain('EADDRINUSE');

      first.child.kill('SIGINT');
      expect(await Promise.race([first.exited, new Promise((r) => setTimeout(() => r('still running'), 15_000))])).toBe(0);
    } finally {
      first.child.kill('SIGKILL');
    }
  }, 90_000);

  it('the API reference page serves the bundle shipped in the package', async () => {
    writeFileSync(
      join(host, 'reference.mjs'),
      `import express from 'express';
import { createMonitoring, openSqliteStorage } from 'svc-monitor-server';
const storage = openSqliteStorage({ file: process.env.DB_FILE });
const monitoring = createMonitoring({ storage }, { jwtSecret: process.env.JWT_SECRET, enableScalar: true });
const app = express();
app.use(monitoring.router);
const server = app.listen(0, '127.0.0.1', () => console.log('dashboard on http://127.0.0.1:' + server.address().port + '/svc-monitoring'));
process.once('SIGINT', () => { server.close(); void monitoring.close().then(() => storage.close()); });
`,
    );
    const reference = await startHost(host, { DB_FILE: join(work, 'reference.db'), JWT_SECRET: 'y'.repeat(48) }, join(host, 'reference.mjs'));
    try {
      const bundle = await fetch(`${reference.base}/svc-monitoring/scalar/standalone.js`);
      expect(bundle.status).toBe(200);
      expect(await bundle.text()).toBe(readFileSync(join(host, 'node_modules', 'svc-monitor-server', 'vendor', 'scalar-standalone.js'), 'utf8'));
    } finally {
      reference.child.kill('SIGKILL');
    }
  }, 60_000);

  it('the package command runs in the host (npx svc-monitor-server --help)', () => {
    expect(run('npx', ['--no-install', 'svc-monitor-server', '--help'], host, 30_000)).toContain('Usage:');
  });
});
