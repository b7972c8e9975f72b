/**
 * The pages at a live event when things go wrong (issue 37), in chromium on a stack started here
 * (speech gateway with the synthetic model, relay as a child process of this test, UI service):
 * readers and the editor reloaded mid-stream lose nothing and show nothing twice; a frozen relay
 * (SIGSTOP) is noticed by every page within 5 s, steadily, and left behind after SIGCONT; after a
 * relay outage a full audience screen is back at the live end; and the editor's files from a
 * session with a mode switch and an outage hold no cue shorter than the minimum and none twice
 * (the outputs archive too); and the small traps stay fixed.
 * Captions are published into the rooms from the test, as a capture page and an editor would.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { MIN_CUE_MS, parseSrt, parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import type { BrowserContext, Page } from 'playwright-core';
import { startArchive } from './archive.js';
import { phoneContext, screenshot, watchErrors } from './browser.js';
import {
  closeSession,
  editorAddress,
  fragment,
  openSession,
  overlayAddress,
  roomPublishers,
  type Session,
  until,
} from './session.js';

jest.setTimeout(120_000);

let session: Session;
let source: RelayPublisher;
let output: RelayPublisher;
let phone: BrowserContext;
let screen: BrowserContext;

beforeAll(async () => {
  session = await openSession();
  const { browser } = session;
  ({ source, output } = roomPublishers(session));
  phone = await phoneContext(browser);
  screen = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
}, 120_000);

afterAll(async () => {
  source?.close();
  output?.close();
  await closeSession(session);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The audience link the links hub builds for the output room. */
const audienceAddress = ({ stack }: Session) =>
  `${stack.uiUrl}audience.html#${fragment({
    relayUrl: stack.relayUrl,
    room: stack.rooms.output,
    relayReadToken: stack.tokens.outputRead,
  })}`;

/** The join frames a page sends to the relay, in order (its reload included). */
function joinsOf(page: Page): Record<string, unknown>[] {
  const joins: Record<string, unknown>[] = [];
  page.on('websocket', (socket) =>
    socket.on('framesent', ({ payload }) => {
      const frame = JSON.parse(String(payload)) as Record<string, unknown>;
      if ('join' in frame) joins.push(frame);
    }),
  );
  return joins;
}

/** Publishes `count` finals into the output room, `everyMs` apart; resolves with their texts. */
async function stream(prefix: string, count: number, everyMs: number): Promise<string[]> {
  const texts: string[] = [];
  for (let n = 1; n <= count; n += 1) {
    const text = `${prefix} caption ${n}.`;
    expect(output.publish({ final: text, id: `${prefix}-${n}`, ln: 'en' })).toBe(true);
    texts.push(text);
    await sleep(everyMs);
  }
  return texts;
}

const audienceCaptions = (page: Page) =>
  page.$$eval('#transcript .caption', (nodes) =>
    nodes.map((n) => ({ id: (n as HTMLElement).dataset.id, text: n.textContent })),
  );
const overlayLines = (page: Page) =>
  page.$$eval('.caption-line', (nodes) => nodes.map((n) => n.textContent ?? ''));

describe('a reload loses nothing', () => {
  test('the audience page (375x812) and the overlay (1920x1080) reloaded mid-stream: captions continue, none twice', async () => {
    const { errors } = session;
    const audience = await phone.newPage();
    errors.audience = watchErrors(audience);
    const audienceJoins = joinsOf(audience);
    await audience.goto(audienceAddress(session));
    const overlay = await screen.newPage();
    errors.overlay = watchErrors(overlay);
    const overlayJoins = joinsOf(overlay);
    await overlay.goto(overlayAddress(session, 'showtime=0&maxlines=20', true));
    for (const page of [audience, overlay])
      await page.waitForFunction(() => document.body.dataset.relay === 'joined');

    // As many as the overlay keeps (maxlines 20): all of them must be on it at the end.
    const streamed = stream('reload', 20, 250);
    await audience.waitForFunction(() => document.querySelectorAll('#transcript .caption').length >= 8);
    await overlay.waitForFunction(() => document.querySelectorAll('.caption-line').length >= 8);
    // Both reloaded while captions keep coming (a phone's pull-to-refresh, OBS's "Refresh").
    await Promise.all([audience.reload(), overlay.reload()]);
    const texts = await streamed;
    const last = texts.at(-1)!;
    await audience.waitForFunction(
      (t) => document.querySelector('#transcript')?.textContent?.includes(t),
      last,
      { timeout: 20_000 },
    );
    await overlay.waitForFunction(
      (t) => Array.from(document.querySelectorAll('.caption-line')).some((n) => n.textContent === t),
      last,
      { timeout: 20_000 },
    );
    expect(audience.url()).not.toContain(session.stack.tokens.outputRead);
    // Every caption once, in order, on both (restored from the tab, then resumed by cursor).
    const shown = (await audienceCaptions(audience)).filter((c) => c.id?.startsWith('reload-'));
    expect(shown.map((c) => c.text)).toEqual(texts);
    expect(shown.map((c) => c.id)).toEqual(texts.map((_, i) => `reload-${i + 1}`));
    expect((await overlayLines(overlay)).filter((line) => line.startsWith('reload '))).toEqual(texts);
    for (const page of [audience, overlay])
      expect(Number(await page.evaluate(() => document.body.dataset.restored))).toBeGreaterThanOrEqual(8);
    expect(await audience.textContent('#audience-status')).toBe('Live');

    // The audience page's first join is bounded to the last minutes; its resume takes everything
    // since its cursor. The overlay resumes by cursor too.
    expect(audienceJoins[0]).toMatchObject({ role: 'read', replayMs: 120_000 });
    expect(audienceJoins[0]).not.toHaveProperty('cursor');
    expect(audienceJoins.at(-1)).toHaveProperty('cursor');
    expect(audienceJoins.at(-1)).not.toHaveProperty('replayMs');
    expect(overlayJoins[0]).not.toHaveProperty('cursor');
    expect(overlayJoins.at(-1)).toHaveProperty('cursor');
    await screenshot(audience, 'event-faults-audience-reloaded');
    await screenshot(overlay, 'event-faults-overlay-reloaded');
    await Promise.all([audience.close(), overlay.close()]);
  });

  test('the editor reloaded with a caption under review and two queued: each reaches the output room once', async () => {
    const { stack, context, errors, outputCaptions } = session;
    const editor = await context.newPage();
    errors.editorReload = watchErrors(editor);
    await editor.goto(editorAddress(session, { mode: 'manual', outputReadToken: stack.tokens.outputRead }));
    for (const id of ['#source-status', '#output-status'])
      await editor.waitForFunction(
        (s) => (document.querySelector(s) as HTMLElement).dataset.link === 'joined',
        id,
      );
    const texts = ['Under review at the reload.', 'Queued first.', 'Queued second.'];
    for (const [i, text] of texts.entries()) source.publish({ final: text, id: `ed-${i + 1}`, ln: 'en' });
    await editor.waitForFunction(
      (t) => (document.querySelector('#draft') as HTMLTextAreaElement).value === t,
      texts[0],
    );
    await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '2');

    await editor.reload();
    await editor
      .waitForFunction(
        () =>
          /^Restored after a reload: 3 captions back for review/.test(
            document.querySelector('#settings-status')?.textContent ?? '',
          ),
        null,
        { timeout: 20_000 },
      )
      .catch(async (error: Error) => {
        throw new Error(`${error.message}\nthe editor says: ${await editor.textContent('#settings-status')}`);
      });
    for (const text of texts) {
      await editor.waitForFunction(
        (t) => (document.querySelector('#draft') as HTMLTextAreaElement).value === t,
        text,
      );
      await editor.press('#draft', 'Enter');
    }
    await until(session, 'the three captions in the output room', () =>
      texts.every((text) => outputCaptions.some((c) => c.final === text)),
    );
    // Nothing more goes out a little later (a resend, a second copy of the review).
    await sleep(2_000);
    const out = outputCaptions.filter((c) => texts.includes(c.final ?? ''));
    expect(out.map((c) => c.final)).toEqual(texts);
    expect(new Set(out.map((c) => c.id)).size).toBe(3);
    expect(await editor.$$eval('#sent li', (nodes) => nodes.length)).toBeGreaterThanOrEqual(3);
    expect(await editor.textContent('#settings-status')).not.toMatch(/could not come back/);
    await screenshot(editor, 'event-faults-editor-reloaded');
    await editor.close();
  });
});

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

describe('the small traps', () => {
  test('capture: Enter in the token field unlocks Start; a wrong token points at the token, not the settings', async () => {
    const { stack, context, errors } = session;
    const capture = await context.newPage();
    errors.captureTraps = watchErrors(capture);
    await capture.goto(stack.captureUrl);
    await capture.fill('#api-key', 'x'.repeat(43));
    await capture.press('#api-key', 'Enter');
    await capture.waitForFunction(
      () => document.querySelector('#api-key')?.getAttribute('aria-invalid') === 'true',
    );
    expect(await capture.textContent('#service-status')).toMatch(/access token/);
    expect(await capture.isDisabled('#start')).toBe(true);
    await capture.fill('#api-key', stack.apiKey);
    await capture.press('#api-key', 'Enter');
    await capture.waitForSelector('#start:not([disabled])');
    expect(await capture.getAttribute('#api-key', 'aria-invalid')).toBeNull();
    await capture.close();
  });

  test('hub: a token link pasted into the open tab fills it in; a loopback link for phones is warned of', async () => {
    const { stack, context, errors } = session;
    const hub = await context.newPage();
    errors.hubTraps = watchErrors(hub);
    await hub.goto(stack.uiUrl);
    expect(await hub.inputValue('#api-key')).toBe('');
    // The same page, only the fragment changes: no load, a hashchange.
    await hub.goto(`${stack.uiUrl}#${fragment({ token: stack.apiKey })}`);
    await hub.waitForFunction(
      () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
    );
    expect(hub.url()).not.toContain(stack.apiKey);
    // The stack runs on 127.0.0.1: the audience link cannot work on a phone, and the hub says how to fix it.
    await hub.waitForSelector('#audience-warning', { state: 'visible' });
    expect(await hub.textContent('#audience-warning')).toMatch(/^Phones cannot open this link: .*UI_HOST/);
    await hub.close();
  });
});

/**
 * Cues of a caption file checked as the issue asks; the file's cue count as ffprobe reads it.
 * `gapMark`: the archive's mark where the relay restarted (it cannot know whether captions were
 * lost then), allowed once, in its own cue.
 */
function checkFile(path: string, format: 'srt' | 'vtt', texts: string[], gapMark?: string): void {
  const cues = (format === 'srt' ? parseSrt : parseWebVtt)(readFileSync(path, 'utf8'));
  const marks = cues.filter((cue) => cue.text === gapMark).length;
  expect(marks).toBeLessThanOrEqual(1);
  expect(cues.map((cue) => cue.text).filter((text) => text !== gapMark)).toEqual(texts);
  for (const cue of cues) expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(MIN_CUE_MS);
  const packets = execFileSync(
    'ffprobe',
    ['-v', 'error', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', path],
    { encoding: 'utf8' },
  ).trim();
  expect({ path, ffprobe: Number(packets) }).toEqual({ path, ffprobe: texts.length + marks });
}

describe('files from a session with a mode switch and an outage', () => {
  test("the editor's exports and the archive, SRT and WebVTT: every cue at least the minimum, none twice, ffprobe reads every cue", async () => {
    const { stack, context, errors, scratch } = session;
    const archive = await startArchive(session);
    try {
      const editor = await context.newPage();
      errors.editorFiles = watchErrors(editor);
      await editor.goto(editorAddress(session, { mode: 'timed', delay: '5' }));
      await editor.waitForFunction(
        () => (document.querySelector('#source-status') as HTMLElement).dataset.link === 'joined',
      );
      const texts: string[] = [];
      let n = 0;
      const speak = () => {
        n += 1;
        const text = `File caption ${n}.`;
        texts.push(text);
        source.publish({ final: text, id: `file-${n}`, ln: 'en' });
      };
      // Timed 5 s: four captions queue; the switch to live releases them at once.
      for (let i = 0; i < 4; i += 1) {
        speak();
        await sleep(300);
      }
      await editor.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '3');
      await editor.check('input[name="mode"][value="live"]');
      for (let i = 0; i < 3; i += 1) {
        speak();
        await sleep(200);
      }
      // An outage with captions spoken through it (the source publisher keeps them until it is back).
      const restarted = stack.restartRelay(4_000);
      await sleep(1_000);
      for (let i = 0; i < 3; i += 1) speak();
      await restarted;
      for (let i = 0; i < 3; i += 1) {
        speak();
        await sleep(150);
      }
      await until(session, 'every caption in the output room', () =>
        texts.every((text) => session.outputCaptions.some((c) => c.final === text)),
      );
      await sleep(1_000);

      for (const format of ['srt', 'vtt'] as const) {
        const [file] = await Promise.all([
          editor.waitForEvent('download'),
          editor.click(`button[data-export="${format}"]`),
        ]);
        const path = join(scratch, `editor.${format}`);
        await file.saveAs(path);
        checkFile(path, format, texts);
      }
      await editor.close();

      // The archive of the same room: one session, every caption once (read by cursor through
      // the outage), the same rule for its cues, and no gap marker: the relay's restart lost
      // nothing (the publishers' delivery sequences say so), so none belongs there.
      const read = { Authorization: `Bearer ${stack.tokens.outputRead}` };
      const archived = await until(session, 'the archive holding every caption', async () => {
        const list = (await (await fetch(`${archive.api}/archive`, { headers: read })).json()) as {
          sessions: { id: string; captions: number }[];
        };
        return list.sessions.length === 1 && list.sessions[0]!.captions >= texts.length && list.sessions[0];
      });
      for (const format of ['srt', 'vtt'] as const) {
        const answer = await fetch(`${archive.api}/archive/${archived.id}.${format}`, { headers: read });
        expect(answer.status).toBe(200);
        const path = join(scratch, `archive.${format}`);
        writeFileSync(path, await answer.text());
        checkFile(path, format, texts);
      }
    } finally {
      await archive.stop();
    }
  }, 300_000);

  test('no page threw or broke its CSP', () => {
    // The relay went away under the pages (outage, freeze); the capture page's /health before its token.
    const expected = [/WebSocket connection to .* failed/, /status of 401 \(Unauthorized\)/];
    const unexpected = Object.entries(session.errors).flatMap(([page, list]) =>
      list
        .filter((text) => !expected.some((pattern) => pattern.test(text)))
        .map((text) => `${page}: ${text}`),
    );
    expect(unexpected).toEqual([]);
  });
});
