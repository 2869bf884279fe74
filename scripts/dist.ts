/**
 * `npm run dist [-- electron-builder options]`: builds the console (electron-vite) and its
 * installers for this OS (or the --win/--mac/--linux named), signing with what the environment
 * provides and saying, per platform, what it signs and what it skips (docs/release.md).
 */
import { spawnSync } from 'node:child_process';
import { configArguments, platformsOf, signingPlan } from './dist-signing.js';

const args = process.argv.slice(2);
let plan;
try {
  plan = signingPlan(platformsOf(args, process.platform), process.env);
} catch (err) {
  console.error(`dist: ${(err as Error).message}`);
  process.exit(1);
}
for (const line of plan.lines) console.log(`dist: ${line}`);

const step = (command: string, commandArgs: string[]) => {
  const result = spawnSync(process.execPath, [command, ...commandArgs], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
step('node_modules/electron-vite/bin/electron-vite.js', ['build']);
step('node_modules/electron-builder/cli.js', ['--config', 'build/electron-builder.yml', ...configArguments(plan.config), ...args]);
