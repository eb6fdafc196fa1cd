/**
 * axe-core in a real page: the ids of its serious and critical findings, and whether the page scrolls sideways.
 * The pages' CSP allows no injected script, so the page must belong to a context made with `bypassCSP: true`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeWindow {
  axe: { run(): Promise<{ violations: Array<{ id: string; impact: string }> }> };
}

/** What axe-core finds serious or critical on the page as it is now, by rule id. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  return page.evaluate(async () => {
    const found = await (window as unknown as AxeWindow).axe.run();
    return found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  });
}

/** True when the page is wider than its window (a phone would scroll it sideways). */
export const scrollsSideways = (page: Page): Promise<boolean> =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth > 0);
