/**
 * The editor's "Where captions go" panel in chromium, on a relay, the UI and the outputs service
 * started here, with the YouTube stand-in (packages/test-services) as the platform: the operator
 * adds a YouTube destination and the archive with the output room's write token, captions of the
 * room reach the stand-in, the panel shows each destination's state and count, the archived
 * session downloads as WebVTT, and a destination is removed; the secret URL is never shown.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client';
import { createPublisher } from '@live-captions/relay-client/node';
import { type StandIn, startYouTubeStandIn } from '@live-captions/test-services';
import { buildPages } from '@live-captions/web';
import type { Browser, Page } from 'playwright-core';
import { until } from '../deploy/helpers/processes.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';
import { type OutputsStack, startOutputsStack } from './outputs-stack.js';

jest.setTimeout(120_000);

const ROOM = 'panel-output';
let stack: OutputsStack;
let youtube: StandIn;
let browser: Browser;
let page: Page;
let publisher: RelayPublisher;
let errors: string[];

beforeAll(async () => {
  await buildPages();
  youtube = await startYouTubeStandIn();
  stack = await startOutputsStack({
    name: 'outputs',
    sourceRoom: 'panel-source',
    outputRoom: ROOM,
    outputsEnv: { OUTPUTS_ALLOWED_HOSTS: `127.0.0.1:${youtube.port}`, OUTPUTS_YOUTUBE_INTERVAL_MS: '200' },
  });
  browser = await launchBrowser('/dev/null');
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  errors = watchErrors(page);
  publisher = createPublisher({ url: stack.relayUrl, room: ROOM, token: stack.tokens.outputWrite });
}, 300_000);

afterAll(async () => {
  publisher?.close();
  await browser?.close();
  await stack?.stop();
  await youtube?.close();
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
    await page.goto(stack.editorLink);
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
