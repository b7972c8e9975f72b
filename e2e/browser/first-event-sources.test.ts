/**
 * Issue 43 ("A volunteer's first event"), the hub's "Stream sources" panel in chromium against
 * the real relay, stream sources service and UI:
 * - 43.1: while the sources service cannot be reached the panel says so in red, and once it
 *   answers and the list loads, that line goes (it used to stay);
 * - 43.4: a new push source's address is shown as OBS asks for it (Server, Stream Key), plus the
 *   whole address for single-field encoders; an SRT address is one field; an address at
 *   localhost is warned of, as the hub warns of phone links;
 * - 43.5: a source publishing into a room another publisher writes into says so on its row, and
 *   the other publisher (a capture page's relay client here) is told by the relay too.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { createPublisher } from '@live-captions/relay-client/node';
import { newToken, relayConfigText } from '@live-captions/secret-files';
import { buildPages } from '@live-captions/web';
import type { Browser, Page } from 'playwright-core';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';

jest.setTimeout(180_000);

const ROOM = 'first-event';
const apiKey = newToken();
let dir: string;
let services: ServiceProcess[] = [];
let browser: Browser;
let page: Page;
let errors: string[];
let uiOrigin: string;
let sourcesEnv: Record<string, string>;
let sourcesPort: number;
let rtmpPort: number;
let relayUrl: string;
const tokens = {
  sourceRead: newToken(),
  sourceWrite: newToken(),
  outputRead: newToken(),
  outputWrite: newToken(),
};

const logs = () => services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');

beforeAll(async () => {
  await buildPages();
  dir = mkdtempSync(join(tmpdir(), 'e2e-first-event-'));
  const [relayPort, uiPort, srtPort, deadGateway] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  sourcesPort = await freePort();
  rtmpPort = await freePort();
  uiOrigin = `http://127.0.0.1:${uiPort}`;
  relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const config = join(dir, 'relay.private.json');
  writeFileSync(
    config,
    relayConfigText({
      origins: [uiOrigin],
      sourceRoom: ROOM,
      outputRoom: `${ROOM}-output`,
      tokens,
      relayAddress: relayUrl,
      relaySite: `${uiOrigin}/`,
    }),
  );
  // The sources service as `pnpm start` runs it (SOURCES_PUBLIC_HOST left at localhost), started
  // only once the hub has said it cannot reach it.
  sourcesEnv = {
    LOG_LEVEL: 'warn',
    PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
    SOURCES_PORT: String(sourcesPort),
    SOURCES_DATA_DIR: join(dir, 'sources'),
    CAPTION_URL: `http://127.0.0.1:${deadGateway}`,
    CAPTION_API_KEY: apiKey,
    CAPTION_LOCAL_ENV_FILE: join(dir, 'caption-local.env'),
    RELAY_URL: relayUrl,
    CAPTION_RELAY_CONFIG: config,
    SOURCES_ALLOWED_ORIGINS: uiOrigin,
    SOURCES_RTMP_PORT: String(rtmpPort),
    SOURCES_SRT_PORTS: `${srtPort}-${srtPort}`,
  };
  services = [
    startService('relay', { LOG_LEVEL: 'warn', RELAY_PORT: String(relayPort), CAPTION_RELAY_CONFIG: config }),
    startService('ui', {
      LOG_LEVEL: 'warn',
      UI_PORT: String(uiPort),
      RELAY_URL: relayUrl,
      CAPTURE_URL: '',
      OUTPUTS_URL: '',
      SOURCES_URL: `http://127.0.0.1:${sourcesPort}/`,
      RELAY_API_URL: '',
    }),
  ];
  try {
    await until(
      'the ui',
      async () => (await fetch(`${uiOrigin}/health`).catch(() => undefined))?.ok === true,
      30_000,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
  browser = await launchBrowser('/dev/null');
  page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  errors = watchErrors(page);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(services.map((s) => s.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const status = () =>
  page.$eval('#sources-status', (node) => ({
    text: node.textContent ?? '',
    tone: (node as HTMLElement).dataset.tone,
  }));

async function addPush(name: string, kind: 'rtmp-push' | 'srt-push'): Promise<void> {
  await page.fill('#source-name', name);
  await page.selectOption('#source-kind', kind);
  await page.click('#source-form button[type="submit"]');
  await page.waitForSelector('#source-push:not([hidden])');
}

describe("a volunteer's first event: the hub's stream sources panel", () => {
  test('43.1: "cannot be reached" in red while the service is down, gone once the list loads', async () => {
    await page.goto(`${uiOrigin}/links.html`);
    await page.waitForSelector('#sources-panel:not([hidden])');
    await page.fill('#api-key', apiKey);
    await page.fill('#source-room', ROOM);
    await page.waitForFunction(
      () => document.querySelector('#sources-status')?.getAttribute('data-tone') === 'error',
    );
    expect((await status()).text).toMatch(/cannot be reached/);

    services.push(startService('sources', sourcesEnv));
    await until(
      'the sources service',
      async () => (await fetch(`http://127.0.0.1:${sourcesPort}/health`).catch(() => undefined))?.ok === true,
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${logs()}`);
    });
    // The panel polls by itself: the list loads and the red line goes, with no click.
    await page.waitForFunction(
      () => document.querySelector('#sources')?.textContent?.includes('No stream sources'),
      undefined,
      {
        timeout: 30_000,
      },
    );
    await page.waitForFunction(
      () => document.querySelector('#sources-status')?.getAttribute('data-tone') !== 'error',
      undefined,
      {
        timeout: 10_000,
      },
    );
    expect((await status()).text).not.toMatch(/cannot be reached/);
    // What an action said is kept by the next poll: a refused source's reason stays in red.
    await page.fill('#source-name', 'Local file');
    await page.selectOption('#source-kind', 'pull');
    await page.fill('#source-url', 'file:///etc/passwd');
    await page.click('#source-form button[type="submit"]');
    await page.waitForFunction(
      () => document.querySelector('#sources-status')?.getAttribute('data-tone') === 'error',
    );
    const refused = (await status()).text;
    await page.waitForTimeout(4500); // two polls
    expect(await status()).toEqual({ text: refused, tone: 'error' });
  });

  test('43.4: Server and Stream Key as OBS asks for them, the whole address apart, localhost warned of', async () => {
    await addPush('OBS main', 'rtmp-push');
    const server = await page.inputValue('#push-server');
    const key = await page.inputValue('#push-key');
    expect(key).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(server).toBe(`rtmp://localhost:${rtmpPort}/live`);
    expect(server).not.toContain(key);
    expect(await page.inputValue('#push-url')).toBe(`${server}/${key}`);
    expect(await page.isVisible('#push-url')).toBe(true);
    expect(await page.textContent('label[for="push-server"]')).toBe('Server');
    expect(await page.textContent('label[for="push-key"]')).toBe('Stream Key');
    // At localhost: only an encoder on this computer reaches it, and the way out is named.
    const warning = await page.textContent('#push-warning');
    expect(await page.isVisible('#push-warning')).toBe(true);
    expect(warning).toMatch(/Only an encoder on this computer can send here: the address is at localhost/);
    expect(warning).toContain('SOURCES_PUBLIC_HOST');
    expect((await axeViolations(page)).filter(serious)).toEqual([]);
    await screenshot(page, 'links-push-obs-fields');
    await page.click('#push-done');
    expect(await page.inputValue('#push-key')).toBe('');
    expect(await page.inputValue('#push-url')).toBe('');
    expect(await page.inputValue('#push-server')).toBe('');

    // SRT: the key is the passphrase inside the address: one field, Stream Key left empty.
    await addPush('SRT encoder', 'srt-push');
    const srt = await page.inputValue('#push-server');
    expect(srt).toMatch(/^srt:\/\/localhost:\d+\?passphrase=[A-Za-z0-9_-]{16,64}&pbkeylen=32$/);
    expect(await page.isVisible('#push-key')).toBe(false);
    expect(await page.isVisible('#push-url')).toBe(false);
    expect(await page.isVisible('#push-srt-hint')).toBe(true);
    expect(await page.isVisible('#push-warning')).toBe(true);
    await page.click('#push-done');
    expect(
      errors.filter((e) => !/status of (422|400)|ERR_CONNECTION_REFUSED|Failed to fetch/.test(e)),
    ).toEqual([]);
  });

  test('43.5: a source in a room another publisher writes into says so on its row; the other is told too', async () => {
    const rowOf = (name: string) => `#sources .source:has(strong:text-is("${name}"))`;
    // The SRT source goes (Remove disconnects it): the OBS source is alone in the room again.
    await page.click(`${rowOf('SRT encoder')} button:text-is("Remove")`);
    await page.waitForFunction(
      () => !document.querySelector('#sources')?.textContent?.includes('SRT encoder'),
    );
    expect(await page.isVisible(`${rowOf('OBS main')} .shared-room`)).toBe(false);
    // A capture page (its relay client) publishes into the room; then a second source is added.
    const counts: number[] = [];
    const capture = createPublisher({
      url: relayUrl,
      room: ROOM,
      token: tokens.sourceWrite,
      onWriters: (writers) => counts.push(writers),
    });
    try {
      await until('the capture page joined', () => capture.state === 'joined', 15_000);
      expect(counts.at(-1)).toBe(2);
      await addPush('Second encoder', 'rtmp-push');
      await page.click('#push-done');
      await page.waitForSelector(`${rowOf('Second encoder')} .shared-room:not([hidden])`, {
        timeout: 30_000,
      });
      expect(await page.textContent(`${rowOf('Second encoder')} .shared-room`)).toMatch(
        /^2 other publishers are writing into the room "first-event" too: their captions and these interleave/,
      );
      // The capture page hears it with its next caption's ack.
      capture.publish({ final: 'Who else is here?', id: 'capture-1' });
      await until('the ack', () => counts.at(-1) === 3, 15_000);
      expect((await axeViolations(page)).filter(serious)).toEqual([]);
      await screenshot(page, 'links-sources-shared-room');
    } finally {
      capture.close();
    }
  });
});
