/**
 * axe-core on every page state (issue 37), in chromium on a stack started here: the links hub
 * empty and filled, the capture page locked, unlocked and running, the editor with a queue, the
 * overlay, the audience page with captions and with its Display panel open, the pages with a lost
 * link (the relay frozen), and the help each page shows without a link. A serious or critical
 * violation fails; moderate and minor ones are printed for a person to weigh. How axe runs in a
 * page under its CSP: axe-audit.ts.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import type { BrowserContext, Page } from 'playwright-core';
import { axeViolations, serious, type Violation } from './axe-audit.js';
import { phoneContext, watchErrors } from './browser.js';
import {
  closeSession,
  editorAddress,
  fragment,
  openSession,
  overlayAddress,
  roomPublishers,
  type Session,
} from './session.js';

jest.setTimeout(90_000);

let session: Session;
let source: RelayPublisher;
let output: RelayPublisher;
let phone: BrowserContext;
const moderate: string[] = [];

beforeAll(async () => {
  session = await openSession();
  const { browser } = session;
  ({ source, output } = roomPublishers(session));
  phone = await phoneContext(browser);
}, 120_000);

afterAll(async () => {
  if (moderate.length) console.log(`axe, moderate and minor:\n${moderate.join('\n')}`);
  source?.close();
  output?.close();
  await closeSession(session);
});

/** Runs axe on the page as it is now (axe-audit.ts); returns the serious and critical violations. */
async function audit(page: Page, state: string): Promise<Violation[]> {
  const violations = await axeViolations(page);
  for (const v of violations.filter((v) => !serious(v)))
    moderate.push(`${state}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(', ')}`);
  return violations.filter(serious);
}

/** Opens `address` in a new page of `context` (the session's desktop one unless told). */
async function open(name: string, address: string, context: BrowserContext = session.context): Promise<Page> {
  const page = await context.newPage();
  session.errors[name] = watchErrors(page);
  await page.goto(address);
  return page;
}

const audienceAddress = () =>
  `${session.stack.uiUrl}audience.html#${fragment({
    relayUrl: session.stack.relayUrl,
    room: session.stack.rooms.output,
    relayReadToken: session.stack.tokens.outputRead,
  })}`;

describe('axe-core finds nothing serious or critical', () => {
  test('links hub: empty, then filled in from the capture host', async () => {
    const hub = await open('hub', session.stack.uiUrl);
    expect(await audit(hub, 'hub empty')).toEqual([]);
    await hub.fill('#api-key', session.stack.apiKey);
    await hub.click('#fetch');
    await hub.waitForFunction(
      () => document.querySelector('#fetch-status')?.textContent === 'Filled in from the capture host.',
    );
    expect(await audit(hub, 'hub filled')).toEqual([]);
    await hub.close();
  });

  test('capture: locked, unlocked, running', async () => {
    const { stack } = session;
    const capture = await open('capture', stack.captureUrl);
    await capture.waitForSelector('#start[disabled]');
    expect(await audit(capture, 'capture locked')).toEqual([]);
    await capture.fill('#api-key', stack.apiKey);
    await capture.click('#load-relay');
    await capture.waitForSelector('#start:not([disabled])');
    expect(await audit(capture, 'capture unlocked')).toEqual([]);
    await capture.click('#start');
    await capture.waitForSelector('#captions li', { timeout: 60_000 });
    expect(await audit(capture, 'capture running')).toEqual([]);
    await capture.click('#stop');
    await capture.waitForFunction(() =>
      document.querySelector('#capture-status')?.textContent?.startsWith('Stopped'),
    );
    await capture.close();
  });

  test('editor with a caption under review and a queue; overlay and audience with captions', async () => {
    const editor = await open(
      'editor',
      editorAddress(session, { mode: 'manual', outputReadToken: session.stack.tokens.outputRead }),
    );
    await editor.waitForFunction(
      () => (document.querySelector('#source-status') as HTMLElement).dataset.link === 'joined',
    );
    for (const n of [1, 2, 3]) source.publish({ final: `Axe caption ${n}.`, id: `axe-${n}`, ln: 'en' });
    await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '2');
    await editor.press('#draft', 'Enter');
    await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '1');
    expect(await audit(editor, 'editor with queue')).toEqual([]);

    const overlay = await open('overlay', overlayAddress(session, 'showtime=0&notice=1', true));
    await overlay.waitForFunction(() => document.body.dataset.relay === 'joined');
    output.publish({ final: 'On the overlay.', id: 'axe-overlay-1', ln: 'en' });
    await overlay.waitForSelector('.caption-line');
    expect(await audit(overlay, 'overlay')).toEqual([]);

    const audience = await open('audience', audienceAddress(), phone);
    await audience.waitForSelector('#transcript .caption');
    expect(await audit(audience, 'audience with captions')).toEqual([]);
    await audience.click('#display-toggle');
    await audience.waitForSelector('#display', { state: 'visible' });
    expect(await audit(audience, 'audience Display open')).toEqual([]);

    // The relay frozen: every page shows its lost link, and is audited so.
    session.stack.signalRelay('SIGSTOP');
    try {
      await audience.waitForFunction(() => document.body.dataset.relay === 'lost', null, { timeout: 10_000 });
      await overlay.waitForSelector('#overlay-notice:not([hidden])', { timeout: 10_000 });
      await editor.waitForFunction(
        () => (document.querySelector('#output-status') as HTMLElement).dataset.link === 'lost',
        null,
        { timeout: 10_000 },
      );
      expect(await audit(audience, 'audience lost link')).toEqual([]);
      expect(await audit(overlay, 'overlay lost link')).toEqual([]);
      expect(await audit(editor, 'editor lost link')).toEqual([]);
    } finally {
      session.stack.signalRelay('SIGCONT');
    }
    await Promise.all([editor, overlay, audience].map((page) => page.close()));
  });

  test('help states: audience, overlay and editor without a link, the start page', async () => {
    const { uiUrl } = session.stack;
    // Fresh contexts: a tab keeps its link (sessionStorage), a new one has none.
    const bare = await session.browser.newContext({ viewport: { width: 375, height: 812 } });
    try {
      const audience = await open('audienceHelp', `${uiUrl}audience.html`, bare);
      await audience.waitForSelector('#audience-help', { state: 'visible' });
      expect(await audit(audience, 'audience help')).toEqual([]);
      const overlay = await open('overlayHelp', `${uiUrl}overlay.html`, bare);
      await overlay.waitForSelector('#overlay-help', { state: 'visible' });
      expect(await audit(overlay, 'overlay help')).toEqual([]);
      const editor = await open('editorHelp', `${uiUrl}editor.html`, bare);
      await editor.waitForFunction(() =>
        /^Needs /.test(document.querySelector('#settings-status')?.textContent ?? ''),
      );
      expect(await audit(editor, 'editor without settings')).toEqual([]);
      const home = await open('home', `${uiUrl}index.html`, bare);
      expect(await audit(home, 'start page')).toEqual([]);
      // The audit can fail: a button with no name is critical to axe.
      await home.evaluate(() => document.body.append(document.createElement('button')));
      expect((await audit(home, 'self-check')).map((v) => `${v.impact} ${v.id}`)).toEqual([
        'critical button-name',
      ]);
    } finally {
      await bare.close();
    }
  });

  test('no page threw or broke its CSP while audited', () => {
    // The relay was frozen under the pages; the capture page's first /health before its token.
    const expected = [/WebSocket connection to .* failed/, /status of 401 \(Unauthorized\)/];
    const unexpected = Object.entries(session.errors).flatMap(([page, list]) =>
      list
        .filter((text) => !expected.some((pattern) => pattern.test(text)))
        .map((text) => `${page}: ${text}`),
    );
    expect(unexpected).toEqual([]);
  });
});
