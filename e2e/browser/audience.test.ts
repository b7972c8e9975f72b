/**
 * The audience page on a phone-sized chromium (375x812), on a relay and UI started here: joined
 * by the link the links hub builds, the session so far from the relay's history, text size and
 * colours kept on the device, corrections in place, "jump to live", and a relay restart after
 * which no caption is shown twice and new ones appear.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client';
import { createPublisher } from '@live-captions/relay-client/node';
import { buildPages } from '@live-captions/web';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AudienceStack, startAudienceStack } from './audience-stack.js';
import { launchBrowser, phoneContext, screenshot, watchErrors } from './browser.js';

jest.setTimeout(60_000);

let stack: AudienceStack;
let browser: Browser;
let phone: BrowserContext;
let publisher: RelayPublisher;
let page: Page;
let link: string;
const errors: string[] = [];

beforeAll(async () => {
  await buildPages();
  stack = await startAudienceStack();
  // No microphone is used; the launcher wants a file for its fake one.
  browser = await launchBrowser('/dev/null');
  phone = await phoneContext(browser);
  publisher = createPublisher({ url: stack.relayUrl, room: stack.room, token: stack.writeToken });
}, 120_000);

afterAll(async () => {
  publisher?.close();
  await browser?.close();
  await stack?.stop();
});

const publish = (caption: Parameters<RelayPublisher['publish']>[0]) =>
  expect(publisher.publish(caption)).toBe(true);
const shown = (p: Page) =>
  p.$$eval('#transcript .caption', (nodes) =>
    nodes.map((n) => `${(n as HTMLElement).dataset.id}=${n.textContent}`),
  );
const waitForText = (p: Page, text: string) =>
  p.waitForFunction((t) => document.querySelector('#transcript')?.textContent?.includes(t), text, {
    timeout: 30_000,
  });
async function until(what: string, condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}\n${stack.logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const fontPx = (p: Page) => p.$eval('#transcript', (n) => Number.parseFloat(getComputedStyle(n).fontSize));

/**
 * Runs `check` on a second page of `context`, closes it, and keeps its errors; the first page is
 * then the one in front again (scroll events wait for a visible page).
 */
async function onAnotherPage(context: BrowserContext, check: (other: Page) => Promise<void>): Promise<void> {
  const other = await context.newPage();
  const otherErrors = watchErrors(other);
  try {
    await check(other);
  } finally {
    await other.close();
    await page.bringToFront();
  }
  errors.push(...otherErrors);
}

describe('the audience page on a phone', () => {
  test('the links hub gives its link and a QR code made in the page', async () => {
    const hub = await phone.newPage();
    const hubErrors = watchErrors(hub);
    await hub.goto(`${stack.uiUrl}links.html`);
    expect(await hub.inputValue('#relay-url')).toBe(stack.relayUrl);
    await hub.fill('#output-room', stack.room);
    await hub.fill('#output-read', stack.readToken);
    link = await hub.inputValue('#audience-link');
    expect(link).toBe(
      `${stack.uiUrl}audience.html#${new URLSearchParams({ relayUrl: stack.relayUrl, room: stack.room, relayReadToken: stack.readToken })}`,
    );
    expect(await hub.isVisible('#audience-qr')).toBe(true);
    // Drawn: the canvas has dark modules (its top-left finder pattern) on white.
    const corner = await hub.$eval('#audience-qr', (canvas) => {
      const c = (canvas as HTMLCanvasElement).getContext('2d')!;
      const at = (x: number, y: number) => c.getImageData(x, y, 1, 1).data[0];
      return [at(2, 2), at(4 * 8 + 4, 4 * 8 + 4), (canvas as HTMLCanvasElement).width];
    });
    expect(corner[0]).toBe(255); // quiet zone
    expect(corner[1]).toBe(0); // finder pattern
    expect(corner[2]).toBeGreaterThan(200);
    expect(await hub.isEnabled('#audience-qr-save')).toBe(true);
    expect(hubErrors).toEqual([]);
    await hub.close();
  });

  test('joined by link, it shows the session so far (scrollback), then live captions', async () => {
    publish({ final: 'Good evening and welcome.', id: 'e-1', ln: 'en' });
    publish({ interm: 'Tonight we', id: 'e-2', ln: 'en' });
    publish({ final: 'Tonight we talk about rivers.', id: 'e-2', ln: 'en' });
    publish({ final: 'First, the Rhine.', id: 'e-3', ln: 'en' });
    await until('the captions acked', () => publisher.queued === 0);

    page = await phone.newPage();
    const pageErrors = watchErrors(page);
    await page.goto(link);
    await waitForText(page, 'First, the Rhine.');
    expect(await shown(page)).toEqual([
      'e-1=Good evening and welcome.',
      'e-2=Tonight we talk about rivers.',
      'e-3=First, the Rhine.',
    ]);
    expect(await page.textContent('#audience-status')).toBe('Live');
    expect(page.url()).not.toContain(stack.readToken);
    publish({ final: 'It starts in the Alps.', id: 'e-4', ln: 'en' });
    await waitForText(page, 'It starts in the Alps.');
    // Announced politely, once, final text only.
    await page.waitForFunction(
      () => document.querySelector('#announcer')?.textContent === 'It starts in the Alps.',
    );
    expect(await page.getAttribute('#announcer', 'aria-live')).toBe('polite');
    // An editor's correction replaces the caption in place.
    publish({ final: 'It starts in the Swiss Alps.', id: 'e-4', ln: 'en' });
    await waitForText(page, 'Swiss Alps');
    expect((await shown(page)).filter((line) => line.startsWith('e-4='))).toEqual([
      'e-4=It starts in the Swiss Alps.',
    ]);
    await screenshot(page, 'audience-phone');
    errors.push(...pageErrors);
  });

  test('text size and colours change and are remembered on the device', async () => {
    const before = await fontPx(page);
    expect(await page.isHidden('#display')).toBe(true);
    await page.click('#display-toggle');
    expect(await page.isVisible('#display')).toBe(true);
    expect(await page.getAttribute('#display-toggle', 'aria-expanded')).toBe('true');
    await page.click('#text-larger');
    await page.click('#text-larger');
    const larger = await fontPx(page);
    expect(larger).toBeGreaterThan(before);
    // Keyboard: the controls take focus with a visible ring.
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('text-smaller');
    expect(await page.$eval('#text-smaller', (n) => getComputedStyle(n).outlineStyle)).toBe('solid');
    await page.check('input[name="theme"][value="contrast"]');
    expect(await page.getAttribute('html', 'data-theme')).toBe('contrast');

    // The same phone opens the link again: its choices are back.
    await onAnotherPage(phone, async (again) => {
      await again.goto(link);
      await waitForText(again, 'Swiss Alps');
      expect(await fontPx(again)).toBe(larger);
      expect(await again.getAttribute('html', 'data-theme')).toBe('contrast');
      expect(await again.textContent('#text-size')).not.toBe('100 %');
    });
  });

  test('the dark palette follows the device until a theme is chosen, then the choice', async () => {
    // A phone of its own: no theme saved yet.
    const fresh = await browser.newContext({ viewport: { width: 375, height: 812 } });
    try {
      await onAnotherPage(fresh, async (p) => {
        const background = () => p.$eval('body', (n) => getComputedStyle(n).backgroundColor);
        await p.emulateMedia({ colorScheme: 'dark' });
        await p.goto(link);
        await waitForText(p, 'Swiss Alps');
        expect(await background()).toBe('rgb(11, 15, 20)');
        await p.click('#display-toggle');
        await p.check('input[name="theme"][value="light"]');
        expect(await background()).toBe('rgb(255, 255, 255)');
        await p.emulateMedia({ colorScheme: 'light' });
        await p.check('input[name="theme"][value="dark"]');
        expect(await background()).toBe('rgb(11, 15, 20)');
        await p.check('input[name="theme"][value="contrast"]');
        expect(await background()).toBe('rgb(0, 0, 0)');
      });
    } finally {
      await fresh.close();
    }
  });

  test('at 200 % zoom (half the CSS width of the phone) nothing needs sideways scrolling', async () => {
    const zoomed = await browser.newContext({ viewport: { width: 188, height: 406 } });
    try {
      const small = await zoomed.newPage();
      await small.goto(link);
      await waitForText(small, 'Swiss Alps');
      await small.click('#display-toggle');
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await small.isVisible('#text-larger')).toBe(true);
      expect(await small.isVisible('#track')).toBe(true);
    } finally {
      await zoomed.close();
      await page.bringToFront();
    }
  });

  test('"jump to live" shows when the reader has scrolled up, and takes them back', async () => {
    for (let i = 5; i <= 30; i++)
      publish({ final: `Line ${i} of a long talk about rivers.`, id: `e-${i}`, ln: 'en' });
    await waitForText(page, 'Line 30 of');
    expect(await page.isHidden('#jump-live')).toBe(true);
    // The reader scrolls back (a gesture: a scroll the page makes itself, or a layout change, never
    // stops it following).
    await page.mouse.move(180, 400);
    await page.mouse.wheel(0, -20_000);
    await page.waitForFunction(() => window.scrollY === 0);
    publish({ final: 'Something new while reading back.', id: 'e-31', ln: 'en' });
    await waitForText(page, 'Something new while reading back.');
    await page.waitForSelector('#jump-live', { state: 'visible' });
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await page.click('#jump-live');
    await page.waitForSelector('#jump-live', { state: 'hidden' });
    const atEnd = await page.evaluate(
      () => document.documentElement.scrollHeight - window.scrollY - window.innerHeight < 50,
    );
    expect(atEnd).toBe(true);
  });

  test('after a relay restart no caption is shown twice and new ones appear', async () => {
    const before = await shown(page);
    await stack.restartRelay();
    await page.waitForFunction(() => document.body.dataset.gap === 'relay-restarted', undefined, {
      timeout: 30_000,
    });
    // A publisher resending a caption already shown (same id and text), then new ones.
    publish({ final: 'Something new while reading back.', id: 'e-31', ln: 'en' });
    publish({ final: 'After the restart, the Danube.', id: 'e-32', ln: 'en' });
    await waitForText(page, 'After the restart, the Danube.');
    const after = await shown(page);
    expect(after).toEqual([...before, 'e-32=After the restart, the Danube.']);
    const ids = after.map((line) => line.split('=')[0]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await page.textContent('#audience-status')).toContain('Live');
    await screenshot(page, 'audience-phone-after-restart');
    expect(errors).toEqual([]);
  });
});
