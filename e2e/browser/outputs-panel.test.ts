/**
 * The editor's "Where captions go" panel in chromium, on a relay, the UI and the outputs service
 * started here, with the YouTube stand-in (packages/test-services) as the platform: the operator
 * adds a YouTube destination and the archive with the output room's write token, captions of the
 * room reach the stand-in, the panel shows each destination's state and count, the archived
 * session downloads as WebVTT, and a destination is removed; the secret URL is never shown.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client';
import { createPublisher } from '@live-captions/relay-client/node';
import { newToken, relayConfigText } from '@live-captions/secret-files';
import { type StandIn, startYouTubeStandIn } from '@live-captions/test-services';
import { buildPages } from '@live-captions/web';
import type { Browser, Page } from 'playwright-core';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';

jest.setTimeout(120_000);

const ROOM = 'panel-output';
let dir: string;
let services: ServiceProcess[] = [];
let youtube: StandIn;
let browser: Browser;
let page: Page;
let publisher: RelayPublisher;
let errors: string[];
const tokens = {
  sourceRead: newToken(),
  sourceWrite: newToken(),
  outputRead: newToken(),
  outputWrite: newToken(),
};
let editorLink: string;

const logs = () => services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n');

beforeAll(async () => {
  await buildPages();
  dir = mkdtempSync(join(tmpdir(), 'e2e-outputs-'));
  youtube = await startYouTubeStandIn();
  const [relayPort, uiPort, outputsPort] = [await freePort(), await freePort(), await freePort()];
  const uiOrigin = `http://127.0.0.1:${uiPort}`;
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  writeFileSync(
    join(dir, 'relay.private.json'),
    relayConfigText({
      origins: [uiOrigin],
      sourceRoom: 'panel-source',
      outputRoom: ROOM,
      tokens,
      relayAddress: relayUrl,
      relaySite: `${uiOrigin}/`,
    }),
  );
  const config = join(dir, 'relay.private.json');
  services = [
    startService('relay', { LOG_LEVEL: 'warn', RELAY_PORT: String(relayPort), CAPTION_RELAY_CONFIG: config }),
    startService('outputs', {
      LOG_LEVEL: 'warn',
      OUTPUTS_PORT: String(outputsPort),
      OUTPUTS_DATA_DIR: join(dir, 'outputs'),
      RELAY_URL: relayUrl,
      CAPTION_RELAY_CONFIG: config,
      OUTPUTS_ALLOWED_ORIGINS: uiOrigin,
      OUTPUTS_ALLOWED_HOSTS: `127.0.0.1:${youtube.port}`,
      OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    }),
    startService('ui', {
      LOG_LEVEL: 'warn',
      UI_PORT: String(uiPort),
      RELAY_URL: relayUrl,
      CAPTURE_URL: '',
      OUTPUTS_URL: `http://127.0.0.1:${outputsPort}/`,
    }),
  ];
  try {
    await until(
      'the outputs service on the relay',
      async () => {
        const health = await fetch(`http://127.0.0.1:${outputsPort}/health`);
        return ((await health.json()) as { relay?: string }).relay === 'connected';
      },
      // Its embedded database starts in ~5 s on an idle machine, over a minute on a loaded one.
      180_000,
    );
    await until('the ui', async () => (await fetch(`${uiOrigin}/health`)).ok, 30_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
  const fragment = new URLSearchParams({
    relayUrl,
    sourceRoom: 'panel-source',
    sourceReadToken: tokens.sourceRead,
    outputRoom: ROOM,
    outputWriteToken: tokens.outputWrite,
  });
  editorLink = `${uiOrigin}/editor.html#${fragment}`;
  browser = await launchBrowser('/dev/null');
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  errors = watchErrors(page);
  publisher = createPublisher({ url: relayUrl, room: ROOM, token: tokens.outputWrite });
}, 300_000);

afterAll(async () => {
  publisher?.close();
  await browser?.close();
  await Promise.all(services.map((s) => s.stop()));
  await youtube?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const rows = () =>
  page.$$eval('#destinations .destination', (nodes) =>
    nodes.map((node) => ({
      label: node.querySelector('strong')?.textContent ?? '',
      state: (node as HTMLElement).dataset.state ?? '',
      text: node.textContent ?? '',
    })),
  );

async function addDestination(kind: string, url = ''): Promise<void> {
  await page.selectOption('#destination-kind', kind);
  if (url) await page.fill('#destination-url', url);
  await page.click('#destination-form button[type="submit"]');
}

describe('the editor manages where captions go', () => {
  test('adds YouTube and the archive, shows them sending, downloads the transcript, removes one', async () => {
    await page.goto(editorLink);
    await page.waitForSelector('#outputs-panel:not([hidden])');
    await addDestination('youtube', youtube.url);
    await page.selectOption('#destination-kind', 'archive');
    // The archive needs no address: its fields are hidden.
    expect(await page.isVisible('#destination-url')).toBe(false);
    expect(await page.isVisible('#destination-lang')).toBe(false);
    await addDestination('archive');
    await page.waitForFunction(() => document.querySelectorAll('#destinations .destination').length === 2);
    const added = await rows();
    expect(added.map((row) => row.label).sort()).toEqual(['Transcript archive', 'YouTube Live']);
    // The secret address is kept on the server: the row shows it masked.
    const signature = new URL(youtube.url).searchParams.get('signature')!;
    expect(added.map((row) => row.text).join(' ')).not.toContain(signature);
    expect(await page.inputValue('#destination-url')).toBe('');

    // Captions are published once the service reads the room (a first join starts at the live edge).
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll<HTMLElement>('#destinations .destination')).every(
          (row) => row.dataset.state !== 'starting',
        ),
      undefined,
      { timeout: 30_000 },
    );
    publisher.publish({ final: 'Welcome to the council meeting.', id: 'p-1' });
    publisher.publish({ final: 'First item: the budget.', id: 'p-2' });
    await until(
      'both captions on the YouTube stand-in',
      () =>
        youtube.accepted.length > 0 &&
        youtube.accepted
          .map((post) => post.body)
          .join('')
          .includes('First item: the budget.'),
      30_000,
    );
    expect(youtube.violations).toEqual([]);
    await page.waitForFunction(
      () => document.querySelector('#destinations')?.textContent?.includes('2 sent'),
      undefined,
      { timeout: 30_000 },
    );

    await page.waitForSelector('#archive-sessions li button');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#archive-sessions li button:has-text("WebVTT")'),
    ]);
    const file = readFileSync((await download.path())!, 'utf8');
    expect(parseWebVtt(file).map((cue) => cue.text)).toEqual([
      'Welcome to the council meeting.',
      'First item: the budget.',
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${ROOM}-\\d{4}-\\d{2}-\\d{2}-\\d{4}\\.vtt$`));

    await page.click('#destinations .destination:has-text("YouTube Live") button');
    await page.waitForFunction(() => document.querySelectorAll('#destinations .destination').length === 1);
    expect((await rows()).map((row) => row.label)).toEqual(['Transcript archive']);
    await screenshot(page, 'editor-outputs-panel');
    expect(errors).toEqual([]);
  });
});
