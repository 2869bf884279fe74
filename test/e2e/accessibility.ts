import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** One axe-core violation, as the failure message shows it. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

let source: Promise<string> | undefined;
const axeSource = () => (source ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));

/**
 * Runs axe-core (WCAG 2.x A and AA rules) in the page over the elements `selector` matches and
 * answers the serious and critical violations. The script goes in through the DevTools protocol
 * (page.evaluate), which the page's Content-Security-Policy does not govern: the app's CSP
 * stays as it is.
 */
export async function seriousAccessibilityViolations(page: Page, selector: string): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource());
  return page.evaluate(async (include) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run({ include: [include] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  }, selector);
}
