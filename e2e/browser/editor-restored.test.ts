/**
 * Issue 42.5, in chromium against the real relay and UI service: the editor's "Restored after a
 * reload" line is news only for a while. After a reload with captions present the settings line
 * says what came back; it stays while new captions come and go out, and goes 30 s after its last
 * change (a minute when some captions could not come back, in the warning's tone); a later
 * message on the same line is news of its own and stays. The page's clock is Playwright's (it
 * runs in step with real time, and is moved forward instead of waiting a minute).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import {
  createPublisher,
  createReader,
  type RelayPublisher,
  type RelayReader,
} from '@live-captions/relay-client/node';
import { buildPages } from '@live-captions/web';
import type { Browser, Page } from 'playwright-core';
import { until } from '../deploy/helpers/processes.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';
import { processLogs, type RelayUi, startRelayUi } from './relay-ui.js';

jest.setTimeout(150_000);

/** The line's time as news: how long after its last change it goes (twice that as a warning). */
const NEWS_MS = 30_000;
const rooms = { source: 'restored-source', output: 'restored-output' };
let dir: string;
let servers: RelayUi;
let browser: Browser;
let source: RelayPublisher;
let reader: RelayReader;
const outputCaptions: RelayCaption[] = [];

beforeAll(async () => {
  await buildPages();
  dir = mkdtempSync(join(tmpdir(), 'e2e-restored-'));
  servers = await startRelayUi({ dir, rooms, uiEnv: { CAPTURE_URL: '', OUTPUTS_URL: '' } });
  await servers.ready().catch((error: Error) => {
    throw new Error(`${error.message}\n${processLogs(servers.processes())}`);
  });
  browser = await launchBrowser('/dev/null');
  source = createPublisher({ url: servers.relayUrl, room: rooms.source, token: servers.tokens.sourceWrite });
  reader = createReader({
    url: servers.relayUrl,
    room: rooms.output,
    token: servers.tokens.outputRead,
    onCaption: (caption) => outputCaptions.push(caption),
  });
}, 120_000);

afterAll(async () => {
  source?.close();
  reader?.close();
  await browser?.close();
  await servers?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Said {
  at: number;
  text: string;
  tone: string;
}

/**
 * The editor in `mode`, reading the source room and writing the output room, its settings line
 * recorded at each change with the page's own clock (`window.said`, kept across reloads in this
 * tab's sessionStorage), that clock installed first.
 */
async function openEditor(mode: string): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    let said: Said[] = [];
    try {
      said = JSON.parse(sessionStorage.getItem('test.said') ?? '[]') as Said[];
    } catch {
      // about:blank has no storage.
    }
    (window as unknown as { said: Said[] }).said = said;
    new MutationObserver(() => {
      const line = document.getElementById('settings-status');
      if (!line) return;
      const now = { at: Date.now(), text: line.textContent ?? '', tone: line.dataset.tone ?? '' };
      const last = said.at(-1);
      if (last?.text === now.text && last.tone === now.tone) return;
      said.push(now);
      try {
        sessionStorage.setItem('test.said', JSON.stringify(said));
      } catch {}
    }).observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
  });
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.clock.install();
  const settings = new URLSearchParams({
    relayUrl: servers.relayUrl,
    sourceRoom: rooms.source,
    sourceReadToken: servers.tokens.sourceRead,
    outputRoom: rooms.output,
    outputWriteToken: servers.tokens.outputWrite,
    outputReadToken: servers.tokens.outputRead,
    mode,
  });
  await page.goto(`${servers.uiOrigin}/editor.html#${settings}`);
  await joined(page);
  return { page, errors };
}

async function joined(page: Page): Promise<void> {
  for (const id of ['#source-status', '#output-status'])
    await page.waitForFunction(
      (s) => (document.querySelector(s) as HTMLElement).dataset.link === 'joined',
      id,
    );
}

const settingsLine = (page: Page) =>
  page.$eval('#settings-status', (node) => ({
    text: node.textContent ?? '',
    tone: (node as HTMLElement).dataset.tone ?? '',
  }));

/** Reloads the editor (its journal saved first) and waits for the settings line to say `line`. */
async function reloadUntil(page: Page, line: RegExp): Promise<void> {
  await page.waitForTimeout(1_000);
  await page.reload();
  await joined(page);
  await page
    .waitForFunction(
      (source) => new RegExp(source).test(document.querySelector('#settings-status')?.textContent ?? ''),
      line.source,
      { timeout: 20_000 },
    )
    .catch(async (error: Error) => {
      const said = await page.evaluate(() => (window as unknown as { said: Said[] }).said);
      throw new Error(`${error.message}\nthe settings line said: ${JSON.stringify(said)}`);
    });
}

/** When the settings line last changed, on the page's clock. */
const lastChange = async (page: Page) =>
  (await page.evaluate(() => (window as unknown as { said: Said[] }).said)).at(-1)!.at;

/** Moves the page's clock to `ms` after `from` (its timers due meanwhile fire). */
async function moveTo(page: Page, from: number, ms: number): Promise<void> {
  const now = await page.evaluate(() => Date.now());
  await page.clock.fastForward(Math.max(0, from + ms - now));
}

const sentToOutput = (id: string) =>
  until(`${id} in the output room`, () => outputCaptions.some((c) => c.id === id), 10_000);

describe('the editor’s “Restored after a reload” line', () => {
  test('live mode: says what came back, stays while captions go on, goes 30 s after its last change', async () => {
    const { page, errors } = await openEditor('live');
    for (const n of [1, 2, 3])
      source.publish({ final: `Before the reload ${n}.`, id: `live-${n}`, ln: 'en' });
    for (const n of [1, 2, 3]) await sentToOutput(`live-${n}`);

    await reloadUntil(
      page,
      /^Restored after a reload: 0 captions back for review, 3 sent captions in the list/,
    );
    expect((await settingsLine(page)).tone).toBe('ok');
    const restoredAt = await lastChange(page);
    // A new caption goes out (live) and the line stays: it is not taken away by the next caption.
    source.publish({ final: 'After the reload.', id: 'live-4', ln: 'en' });
    await sentToOutput('live-4');
    await page.waitForFunction(() => document.querySelectorAll('#sent li').length === 4);
    await moveTo(page, restoredAt, NEWS_MS - 2_000);
    expect((await settingsLine(page)).text).toMatch(/^Restored after a reload/);
    await moveTo(page, restoredAt, NEWS_MS + 2_000);
    await page.waitForFunction(() => document.querySelector('#settings-status')?.textContent === '');
    expect(await settingsLine(page)).toEqual({ text: '', tone: 'idle' });
    await screenshot(page, 'editor-restored-gone');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('a later message on the settings line is news of its own: it stays', async () => {
    const { page, errors } = await openEditor('live');
    source.publish({ final: 'One more.', id: 'later-1', ln: 'en' });
    await sentToOutput('later-1');
    await reloadUntil(page, /^Restored after a reload: /);
    const restoredAt = await lastChange(page);
    await page.click('#copy-overlay');
    await page.waitForFunction(() =>
      /^(Overlay link copied|Copying failed)/.test(
        document.querySelector('#settings-status')?.textContent ?? '',
      ),
    );
    const later = await settingsLine(page);
    await moveTo(page, restoredAt, 2 * NEWS_MS + 2_000);
    await page.waitForTimeout(500);
    expect(await settingsLine(page)).toEqual(later);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test('captions that could not come back: a warning, still there after 30 s, gone after a minute', async () => {
    const { page, errors } = await openEditor('manual');
    for (const n of [1, 2]) source.publish({ final: `Waiting ${n}.`, id: `lost-${n}`, ln: 'en' });
    await page.waitForFunction(
      () => (document.querySelector('#draft') as HTMLTextAreaElement).value === 'Waiting 1.',
    );
    await page.waitForFunction(() => document.querySelector('#queue-count')?.textContent === '1');
    // The relay (no rooms store) restarts and no longer holds them.
    await page.waitForTimeout(1_000);
    await servers.restartRelay();
    await reloadUntil(page, /2 captions could not come back: the relay no longer holds them\.$/);
    expect((await settingsLine(page)).tone).toBe('warn');
    const restoredAt = await lastChange(page);
    await moveTo(page, restoredAt, NEWS_MS + 2_000);
    expect((await settingsLine(page)).text).toMatch(/could not come back/);
    await moveTo(page, restoredAt, 2 * NEWS_MS - 2_000);
    expect((await settingsLine(page)).text).toMatch(/could not come back/);
    await moveTo(page, restoredAt, 2 * NEWS_MS + 2_000);
    await page.waitForFunction(() => document.querySelector('#settings-status')?.textContent === '');
    expect(await settingsLine(page)).toEqual({ text: '', tone: 'idle' });
    // Only the relay's restart: the page's connection refused while it was down.
    expect(errors.filter((e) => !/WebSocket connection to .* failed/.test(e))).toEqual([]);
    await page.context().close();
  });
});
