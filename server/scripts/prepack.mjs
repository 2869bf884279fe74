// Runs before `npm pack` / `npm publish` in server/: a clean build of dist/ (no files left over
// from removed sources), the dashboard into web/ and the API reference's bundle into vendor/,
// then checks that all are in place, so a pack from a fresh clone ships everything it needs.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const server = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(server, '..');

function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`prepack: ${command} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

const rootPackage = existsSync(join(root, 'package.json')) ? JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) : {};
if (!rootPackage.workspaces?.includes('server')) {
  console.error('prepack: the dashboard is built from the svc-monitor repository; pack server/ inside a checkout of it (after npm ci at its root).');
  process.exit(1);
}
rmSync(join(server, 'dist'), { recursive: true, force: true });
run('npx', ['tsc', '-p', 'tsconfig.build.json'], server);
run('npm', ['run', 'build:web', '--silent'], root);
run(process.execPath, [join(server, 'scripts', 'vendorScalar.mjs')], server);
for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/cli.js', 'web/index.html', 'vendor/scalar-standalone.js']) {
  if (!existsSync(join(server, file))) {
    console.error(`prepack: ${file} is missing after the build`);
    process.exit(1);
  }
}
