/**
 * The relay going away under the pages at a live event (issue 37), in chromium on a stack started
 * here (speech gateway with the synthetic model, relay as a child process of this test, UI
 * service): a frozen relay (SIGSTOP) is noticed by every page within 5 s, steadily, and left
 * behind after SIGCONT; after a relay outage a full audience screen is back at the live end.
 * Captions are published into the rooms from the test, as a capture page and an editor would.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, watchErrors } from './browser.js';
import {
  audienceAddress,
  closeEventSession,
  openEventSession,
  sleep,
  unexpectedPageErrors,
} from './event-session.js';
import { editorAddress, overlayAddress, type Session, until } from './session.js';

jest.setTimeout(120_000);

let session: Session;
let source: RelayPublisher;
let output: RelayPublisher;
let phone: BrowserContext;
let screen: BrowserContext;

beforeAll(async () => {
  ({ session, source, output, phone, screen } = await openEventSession());
}, 120_000);

afterAll(() => closeEventSession({ session, source, output }));

/**
 * Where a page shows its relay link: an element's `data-<key>` (or, with `notice`, `lost` while
 * that notice shows). Read in the page: its CSP allows no `new Function`.
 */
interface LinkProbe {
  selector: string;
  key: string;
  notice?: string;
}
const viewOf = (page: Page, probe: LinkProbe) =>
  page.evaluate(({ selector, key, notice }) => {
    const element = notice ? document.querySelector(notice) : null;
    if (element && !(element as HTMLElement).hidden) return 'lost';
    return (document.querySelector(selector) as HTMLElement | null)?.dataset[key];
  }, probe);

describe('a frozen relay', () => {
  test('SIGSTOP for 10 s: every page shows it within 5 s, steadily, and is back after SIGCONT', async () => {
    const { stack, context, errors } = session;
    const capture = await context.newPage();
    errors.capture = watchErrors(capture);
    await capture.goto(stack.captureUrl);
    await capture.fill('#api-key', stack.apiKey);
    await capture.click('#load-relay');
    const editor = await context.newPage();
    errors.editorFrozen = watchErrors(editor);
    await editor.goto(editorAddress(session, { mode: 'live' }));
    const overlay = await screen.newPage();
    errors.overlayFrozen = watchErrors(overlay);
    await overlay.goto(overlayAddress(session, 'showtime=0&notice=1', true));
    const audience = await phone.newPage();
    errors.audienceFrozen = watchErrors(audience);
    await audience.goto(audienceAddress(session));

    // Each page's view of its link: `lost` while it knows the relay is gone.
    const pages: [string, Page, LinkProbe][] = [
      ['capture', capture, { selector: '#relay-status', key: 'link' }],
      ['editor source', editor, { selector: '#source-status', key: 'link' }],
      ['editor output', editor, { selector: '#output-status', key: 'link' }],
      ['overlay', overlay, { selector: 'body', key: 'relay', notice: '#overlay-notice' }],
      ['audience', audience, { selector: '#audience-status', key: 'state' }],
    ];
    for (const [name, page, probe] of pages)
      await until(session, `${name} joined`, async () => (await viewOf(page, probe)) === 'joined');
    // Sampled in each page every 100 ms, on the browser's clock (the test's).
    for (const [name, page, probe] of pages) {
      await page.evaluate(
        ({ name, probe: { selector, key, notice } }) => {
          const view = () => {
            const element = notice ? document.querySelector(notice) : null;
            if (element && !(element as HTMLElement).hidden) return 'lost';
            return (document.querySelector(selector) as HTMLElement | null)?.dataset[key] ?? '';
          };
          const holder = window as unknown as { linkLogs?: Record<string, [number, string][]> };
          const log: [number, string][] = [];
          holder.linkLogs ??= {};
          holder.linkLogs[name] = log;
          setInterval(() => log.push([Date.now(), view()]), 100);
        },
        { name, probe },
      );
    }
    await sleep(1_000);
    const frozenAt = Date.now();
    stack.signalRelay('SIGSTOP');
    await sleep(10_000);
    const thawedAt = Date.now();
    stack.signalRelay('SIGCONT');
    for (const [name, page, probe] of pages)
      await until(session, `${name} joined again`, async () => (await viewOf(page, probe)) === 'joined');
    const report: string[] = [];
    for (const [name, page] of pages) {
      const log = await page.evaluate(
        (key) => (window as unknown as { linkLogs: Record<string, [number, string][]> }).linkLogs[key]!,
        name,
      );
      const lostAt = log.find(([at, view]) => at >= frozenAt && view === 'lost')?.[0];
      expect({ name, noticed: lostAt !== undefined }).toEqual({ name, noticed: true });
      report.push(`${name}: lost after ${((lostAt! - frozenAt) / 1000).toFixed(1)} s`);
      expect({ name, withinMs: lostAt! - frozenAt <= 5_000 }).toEqual({ name, withinMs: true });
      // Steady: from the first `lost` until the relay thawed, every sample says so (no blinking).
      const during = log.filter(([at]) => at >= lostAt! && at < thawedAt).map(([, view]) => view);
      expect({ name, views: [...new Set(during)] }).toEqual({ name, views: ['lost'] });
      expect(during.length).toBeGreaterThan(40);
    }
    console.log(`frozen relay: ${report.join('; ')}`);
    // The link carries captions again: a source caption reaches the overlay through the editor.
    source.publish({ final: 'After the thaw.', id: 'thaw-1', ln: 'en' });
    await overlay.waitForFunction(
      () =>
        Array.from(document.querySelectorAll('.caption-line')).some(
          (n) => n.textContent === 'After the thaw.',
        ),
      null,
      { timeout: 20_000 },
    );
    await audience.waitForFunction(() =>
      document.querySelector('#transcript')?.textContent?.includes('After the thaw.'),
    );
    await Promise.all([capture, editor, overlay, audience].map((page) => page.close()));
  });
});

describe('a relay outage', () => {
  test('with a full audience screen: the page is back at the live end, its status one short line', async () => {
    const { stack, errors } = session;
    const audience = await phone.newPage();
    errors.audienceOutage = watchErrors(audience);
    await audience.goto(audienceAddress(session));
    await audience.waitForFunction(() => document.body.dataset.relay === 'joined');
    const atLiveEnd = () =>
      audience.evaluate(
        () => document.documentElement.scrollHeight - window.scrollY - window.innerHeight < 50,
      );
    let n = 0;
    const say = (count: number) => {
      for (let i = 0; i < count; i += 1) {
        n += 1;
        output.publish({
          final: `Outage line ${n}: a caption long enough to wrap on a phone screen.`,
          id: `outage-${n}`,
          ln: 'en',
        });
      }
      return `Outage line ${n}:`;
    };
    const shows = (text: string) =>
      audience.waitForFunction((t) => document.querySelector('#transcript')?.textContent?.includes(t), text, {
        timeout: 30_000,
      });
    await shows(say(40));
    expect(
      await audience.evaluate(() => document.documentElement.scrollHeight > 2 * window.innerHeight),
    ).toBe(true);
    expect(await atLiveEnd()).toBe(true);
    const lineHeight = await audience.$eval('#audience-status', (node) => {
      const style = getComputedStyle(node);
      const height = Number.parseFloat(style.lineHeight);
      // `normal`: about 1.2 times the font size.
      return Number.isFinite(height) ? height : 1.2 * Number.parseFloat(style.fontSize);
    });

    // Twice (the issue saw it fail in 2 runs of 4): the relay stops for 3 s, captions come after.
    for (const round of [1, 2]) {
      const restarted = stack.restartRelay(3_000);
      await audience.waitForFunction(() => document.body.dataset.relay === 'lost', null, { timeout: 10_000 });
      await restarted;
      await audience.waitForFunction(() => document.body.dataset.relay === 'joined', null, {
        timeout: 30_000,
      });
      await shows(say(15));
      // The layout settles (a restored status line, new captions) before the page is judged.
      await sleep(500);
      expect({ round, atLiveEnd: await atLiveEnd() }).toEqual({ round, atLiveEnd: true });
      expect(await audience.isHidden('#jump-live')).toBe(true);
      const status = await audience.$eval('#audience-status', (node) => ({
        text: node.textContent ?? '',
        height: node.getBoundingClientRect().height,
      }));
      expect(status.text).toMatch(/^Live/);
      expect(status.height).toBeLessThanOrEqual(lineHeight * 1.5);
    }
    await screenshot(audience, 'event-faults-audience-after-outage');
    // The notice of missed captions clears itself.
    await audience.waitForFunction(
      () => document.querySelector('#audience-status')?.textContent === 'Live',
      null,
      {
        timeout: 15_000,
      },
    );
    // Display, tapped at the live end, opens where the reader is.
    await audience.click('#display-toggle');
    const panel = await audience.$eval('#display', (node) => {
      const box = node.getBoundingClientRect();
      return { top: box.top, bottom: box.bottom, height: window.innerHeight };
    });
    expect(panel.top).toBeLessThan(panel.height);
    expect(panel.bottom).toBeGreaterThan(0);
    await audience.close();
  });
});

test('no page threw or broke its CSP', () => {
  expect(unexpectedPageErrors(session)).toEqual([]);
});
