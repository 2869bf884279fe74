// `npm start`: builds the server package and the web dashboard only when a source is newer than
// what was built (or nothing was built yet), so a second start does not rebuild.
// `node scripts/build-if-stale.mjs web` does that for the web dashboard only (the e2e tests);
// with --check nothing is built: the exit status says whether the named parts are up to date
// (0) or older than a source (1).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Newest modification time under the given files and folders (0 when none exist). */
function newest(paths) {
  let latest = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    else latest = Math.max(latest, stat.mtimeMs);
  };
  for (const p of paths) visit(join(root, p));
  return latest;
}

function built(output) {
  const path = join(root, output);
  return existsSync(path) ? statSync(path).mtimeMs : -1;
}

const parts = [
  {
    key: 'server',
    name: 'server package',
    output: 'server/dist/index.js',
    inputs: ['server/src', 'server/tsconfig.json', 'server/tsconfig.build.json', 'server/package.json'],
    command: ['npm', ['run', 'build', '-w', 'svc-monitor-server', '--silent']],
  },
  {
    key: 'web',
    name: 'web dashboard',
    output: 'server/web/index.html',
    inputs: ['src/renderer', 'src/shared', 'server/src/contracts', 'vite.web.config.ts'],
    command: ['npm', ['run', 'build:web', '--silent']],
  },
];

const check = process.argv.includes('--check');
const only = process.argv.slice(2).filter((a) => a !== '--check');
const unknown = only.filter((key) => !parts.some((p) => p.key === key));
if (unknown.length > 0) {
  console.error(`build-if-stale: unknown part ${unknown.join(', ')} (known: ${parts.map((p) => p.key).join(', ')})`);
  process.exit(2);
}

for (const part of parts.filter((p) => only.length === 0 || only.includes(p.key))) {
  if (built(part.output) >= newest(part.inputs)) {
    if (!check) console.log(`[start] ${part.name} is up to date`);
    continue;
  }
  if (check) process.exit(1);
  console.log(`[start] building the ${part.name}`);
  const [command, args] = part.command;
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
