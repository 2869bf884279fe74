import { isBuiltin } from 'node:module';
import { posix } from 'node:path';

/** A module a bundle loads at run time, and how (for the failure message). */
export interface ModuleReference {
  specifier: string;
  how: string;
}

const PATTERNS: Array<[RegExp, string]> = [
  [/(?<!["'\w$.])from\s*["']([^"'\s]+)["']/g, 'import'],
  [/(?:^|[;\n}])\s*import\s*["']([^"'\s]+)["']/g, 'import'],
  [/(?<![\w$.])import\s*\(\s*["']([^"'\s]+)["']\s*\)/g, 'import()'],
  [/(?<![\w$.])(require|requireFunc|__require|__non_webpack_require__)\s*\(\s*["']([^"'\s]+)["']\s*\)/g, 'require'],
];

/**
 * Every module a built bundle loads at run time: static imports, `import()`, `require`, and
 * the hidden requires some libraries use to dodge bundlers (`requireFunc("ws")`), without
 * Node builtins and `electron` (the runtime provides both).
 */
export function runtimeModuleReferences(bundle: string): ModuleReference[] {
  // Comments name modules too (`/** @type {import('./eval')} */`): leave them out.
  const code = bundle.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = new Map<string, ModuleReference>();
  for (const [pattern, how] of PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      const specifier = m.length > 2 ? m[2]! : m[1]!;
      const kind = m.length > 2 ? `${m[1]}("…")` : how;
      if (isBuiltin(specifier) || specifier === 'electron' || specifier.startsWith('electron/')) continue;
      if (!found.has(specifier)) found.set(specifier, { specifier, how: kind });
    }
  }
  return [...found.values()];
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`; relative paths unchanged. */
export function packageNameOf(specifier: string): string {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return specifier;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/**
 * Where Node finds package `name` when required from `fromDir` inside the app (paths are
 * asar-relative, `/`-separated): the nearest `node_modules/<name>/package.json` walking up.
 */
export function resolvePackageDir(name: string, fromDir: string, files: ReadonlySet<string>): string | undefined {
  let dir = fromDir;
  for (;;) {
    const base = posix.basename(dir) === 'node_modules' ? dir : posix.join(dir, 'node_modules');
    const candidate = posix.join(base, name);
    if (files.has(posix.join(candidate, 'package.json'))) return candidate;
    if (dir === '/' || dir === '') return undefined;
    dir = posix.dirname(dir);
  }
}
