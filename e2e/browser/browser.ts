/**
 * Debian's chromium driven by playwright-core: fake microphone playing a WAV file, no network
 * besides the stack on 127.0.0.1, a fresh profile.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ROOT } from './stack.js';

// playwright-core is a devDependency of the package whose pages are tested.
const { chromium } = createRequire(join(ROOT, 'packages/web/package.json'))(
  'playwright-core',
) as typeof import('playwright-core');

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const OUTPUT_DIR = join(ROOT, 'test-output');

export async function launchBrowser(microphoneWav: string): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    args: [
      // Playwright adds --headless and a fresh temporary --user-data-dir itself.
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-default-apps',
      '--autoplay-policy=no-user-gesture-required',
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphoneWav}`,
    ],
  });
}

/** A reader's phone as the issues measure the audience page: 375x812 CSS pixels, 2x, touch. */
export function phoneContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, hasTouch: true });
}

/** Saves a screenshot into test-output/ (git-ignored) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = join(OUTPUT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Collects console errors and CSP violations of a page (a test asserts there are none). A failed
 * resource's line names its method and address, which chromium's own text leaves out, so that an
 * unexpected one says which request it was.
 */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  const failed: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.request().method()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    const resource = message.location().url;
    const request = text.startsWith('Failed to load resource')
      ? (failed.find((line) => line.endsWith(` ${resource}`)) ?? resource)
      : undefined;
    errors.push(request ? `${text} (${request})` : text);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}
