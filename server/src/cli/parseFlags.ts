import { CliError } from './CliError.js';

export type FlagValue = string | true | false;

/**
 * `--name value`, `--name=value`, bare `--flag` (true) and `--no-flag` (false). Flags not in
 * `known` are refused (exit 2). Names are kebab-case on the command line, camelCase here.
 */
export function parseFlags(argv: readonly string[], known: ReadonlySet<string>, booleans: ReadonlySet<string>): Map<string, FlagValue> {
  const out = new Map<string, FlagValue>();
  const byKebab = new Map([...known].map((k) => [camelToKebab(k), k] as const));
  const toCamel = (kebab: string) => byKebab.get(kebab) ?? kebabToCamel(kebab);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') throw new CliError(`Unexpected argument "${arg}". See --help.`);
    let name = arg.slice(2);
    let value: FlagValue | undefined;
    const eq = name.indexOf('=');
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let camel = toCamel(name);
    if (!known.has(camel) && camel.startsWith('no') && value === undefined) {
      const positive = toCamel(name.slice(3));
      if (booleans.has(positive)) {
        out.set(positive, false);
        continue;
      }
    }
    if (!known.has(camel)) throw new CliError(`Unknown flag "--${name}". See --help.`);
    if (value === undefined) {
      const next = argv[i + 1];
      if (booleans.has(camel) && (next === undefined || next.startsWith('--') || !/^(true|false|1|0)$/i.test(next))) value = true;
      else if (next === undefined || next.startsWith('--')) throw new CliError(`Flag "--${name}" needs a value.`);
      else {
        value = next;
        i++;
      }
    }
    camel = camel as string;
    out.set(camel, value);
  }
  return out;
}

export const kebabToCamel = (s: string) => s.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
/** Words of a camelCase name; a run of capitals is one word (`enableUI` → enable, UI). */
const words = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').split(' ');
export const camelToKebab = (s: string) => words(s).join('-').toLowerCase();
export const camelToEnv = (s: string) => `SVC_MONITOR_${words(s).join('_').toUpperCase()}`;
