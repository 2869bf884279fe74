import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Whether this run refreshes the committed screenshots (`npm run screenshots`). */
const SAVING_DOCS = process.env.SVC_MONITOR_SCREENSHOTS === 'docs';

/**
 * Waits `ms` for animations to end before a screenshot, only when the screenshot goes into the
 * docs: in `npm test` the page is captured as soon as what the test waits for is shown.
 */
export async function settleForDocs(page: { waitForTimeout(ms: number): Promise<void> }, ms: number): Promise<void> {
  if (SAVING_DOCS) await page.waitForTimeout(ms);
}

/**
 * Where the e2e runs save their screenshots: `docs/screenshots/<kind>` when asked to refresh
 * the committed ones (`npm run screenshots`, SVC_MONITOR_SCREENSHOTS=docs), otherwise a temp
 * folder, so that `npm test` never rewrites files under version control.
 */
export function screenshotDir(kind: 'web' | 'desktop'): string {
  const dir = SAVING_DOCS
    ? join(REPO, 'docs', 'screenshots', kind)
    : join(tmpdir(), 'svc-monitor-screenshots', kind);
  mkdirSync(dir, { recursive: true });
  return dir;
}
