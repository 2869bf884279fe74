#!/usr/bin/env node
// svc-monitor-server: `demo` (engine with sample tasks + monitoring) and `serve` (standalone
// monitoring of an existing database). Dev: `node --import tsx server/src/cli.ts ...`.
import { CliError } from './cli/CliError.js';
import { OptionError } from './options/OptionError.js';
import { helpText } from './cli/help.js';

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help' || rest.includes('--help')) {
    console.log(helpText());
    if (command === undefined) process.exitCode = 2;
    return;
  }
  if (command === 'serve') {
    const { serveCommand } = await import('./cli/serveCommand.js');
    return serveCommand(rest, process.env);
  }
  if (command === 'demo') {
    const { demoCommand } = await import('./cli/demoCommand.js');
    return demoCommand(rest, process.env);
  }
  throw new CliError(`Unknown command "${command}". Commands: demo, serve. See --help.`);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof CliError) {
    console.error(`svc-monitor-server: ${err.message}`);
    process.exit(err.exitCode);
  }
  if (err instanceof OptionError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(err);
  process.exit(1);
});
