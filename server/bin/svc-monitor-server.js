#!/usr/bin/env node
// The command of the package. It stays in the repository (unlike dist/), so npm links it into
// node_modules/.bin on install even before the first build; it then runs the built CLI.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error('svc-monitor-server: not built yet (no dist/cli.js). In the repository run `npm run build` first.');
  process.exit(1);
}
await import(cli.href);
