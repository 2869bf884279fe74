// `npm start`: builds the server package and the web dashboard only when a source is newer than
// what was built (or nothing was built yet), so a second start does not rebuild.
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
    name: 'server package',
    output: 'server/dist/index.js',
    inputs: ['server/src', 'server/tsconfig.json', 'server/tsconfig.build.json', 'server/package.json'],
    command: ['npm', ['run', 'build', '-w', 'svc-monitor-server', '--silent']],
  },
  {
    name: 'web dashboard',
    output: 'server/web/index.html',
    inputs: ['src/renderer', 'server/src/contracts', 'vite.web.config.ts'],
    command: ['npm', ['run', 'build:web', '--silent']],
  },
];

for (const part of parts) {
  if (built(part.output) >= newest(part.inputs)) {
    console.log(`[start] ${part.name} is up to date`);
    continue;
  }
  console.log(`[start] building the ${part.name}`);
  const [command, args] = part.command;
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
