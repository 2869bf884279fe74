import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where the e2e runs save their screenshots: `docs/screenshots/<kind>` when asked to refresh
 * the committed ones (`npm run screenshots`, SVC_MONITOR_SCREENSHOTS=docs), otherwise a temp
 * folder, so that `npm test` never rewrites files under version control.
 */
export function screenshotDir(kind: 'web' | 'desktop'): string {
  const dir = process.env.SVC_MONITOR_SCREENSHOTS === 'docs'
    ? join(REPO, 'docs', 'screenshots', kind)
    : join(tmpdir(), 'svc-monitor-screenshots', kind);
  mkdirSync(dir, { recursive: true });
  return dir;
}
