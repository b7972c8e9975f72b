/**
 * axe-core in a page (issue 37): its own source (the devDependency of packages/web, never a CDN)
 * evaluated through the DevTools protocol, which the pages' CSP (scripts from self only) does not
 * apply to, so the pages are audited under the very CSP they are served with.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from './stack.js';

// axe-core is a devDependency of the package whose pages are audited, as playwright-core is.
const AXE_SOURCE = readFileSync(
  createRequire(join(ROOT, 'packages/web/package.json')).resolve('axe-core/axe.min.js'),
  'utf8',
);

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Every violation axe finds on the page as it is now: every rule axe runs by default (WCAG 2.x
 * A/AA and best practices) plus the experimental check that a control's accessible name contains
 * its visible text.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } }).axe;
    const results = (await axe.run(document, {
      resultTypes: ['violations'],
      rules: { 'label-content-name-mismatch': { enabled: true } },
    })) as {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    };
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((node) => node.target.join(' ')),
    }));
  });
}

export const serious = (v: Violation) => v.impact === 'serious' || v.impact === 'critical';
