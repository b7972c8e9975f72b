/**
 * The editor's Languages panel in chromium, against the real outputs service (its translation
 * routes, destinations and archive) and a real Apertium APy (packages/test-services
 * startApertium), with the YouTube and LibreTranslate stand-ins for the hosted platforms: the
 * target select offers only what the engine reports; the operator adds Spanish and Catalan, each
 * row with its engine and state; a YouTube destination takes the Spanish track and gets only the
 * Spanish frames of the room; the archive keeps every track and downloads the Spanish one as
 * WebVTT; names are kept; a LibreTranslate key typed is never shown back (only the service's
 * mask); the links hub offers the room's languages for the overlay and the audience link.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { parseWebVtt } from '@live-captions/caption-files';
import type { RelayPublisher } from '@live-captions/relay-client';
import { createPublisher } from '@live-captions/relay-client/node';
import {
  type ApertiumServer,
  type LibreTranslateStandIn,
  type StandIn,
  startApertium,
  startLibreTranslateStandIn,
  startYouTubeStandIn,
} from '@live-captions/test-services';
import { buildPages } from '@live-captions/web';
import type { Browser, Page } from 'playwright-core';
import { until } from '../deploy/helpers/processes.js';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, screenshot, watchErrors } from './browser.js';
import { type OutputsStack, startOutputsStack } from './outputs-stack.js';

jest.setTimeout(180_000);

const ROOM = 'languages-output';
const LIBRE_KEY = 'libre-key-0123456789abcdef';
let stack: OutputsStack;
let apertium: ApertiumServer;
let libre: LibreTranslateStandIn;
let youtube: StandIn;
let browser: Browser;
let page: Page;
let publisher: RelayPublisher;
let errors: string[];

const logs = () => `${stack?.logs() ?? ''}\n--- apertium\n${apertium?.output() ?? ''}`;

beforeAll(async () => {
  await buildPages();
  [apertium, libre, youtube] = await Promise.all([
    startApertium(),
    startLibreTranslateStandIn({ apiKey: LIBRE_KEY, requireKey: true }),
    startYouTubeStandIn(),
  ]);
  stack = await startOutputsStack({
    name: 'languages',
    sourceRoom: 'languages-source',
    outputRoom: ROOM,
    outputsEnv: {
      OUTPUTS_ALLOWED_HOSTS: [`127.0.0.1:${youtube.port}`, libre.hostPort, `127.0.0.1:${apertium.port}`].join(
        ',',
      ),
      OUTPUTS_APERTIUM_URL: apertium.url,
      OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    },
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
  await Promise.all([apertium?.stop(), libre?.close(), youtube?.close()]);
});

const targetOptions = () =>
  page.$$eval('#translation-target option', (nodes) => nodes.map((n) => (n as HTMLOptionElement).value));
const languageRows = () =>
  page.$$eval('#translations .translation-row', (nodes) =>
    nodes.map((node) => ({
      target: (node as HTMLElement).dataset.target ?? '',
      state: (node as HTMLElement).dataset.state ?? '',
      text: node.textContent ?? '',
    })),
  );

async function addLanguage(target: string): Promise<void> {
  await page.waitForFunction(
    (t) =>
      Array.from(document.querySelectorAll('#translation-target option')).some(
        (o) => (o as HTMLOptionElement).value === t,
      ),
    target,
    { timeout: 30_000 },
  );
  await page.selectOption('#translation-target', target);
  await page.click('#translation-form button[type="submit"]');
  await page.waitForSelector(`#translations .translation-row[data-target="${target}"]`, { timeout: 30_000 });
}

describe('the editor adds languages and every consumer picks one', () => {
  test('targets from what Apertium reports; Spanish and Catalan added, each with its engine and state', async () => {
    await page.goto(stack.editorLink);
    await page.waitForSelector('#outputs-panel:not([hidden])');
    // Apertium is the default engine: no address (the stack's own), no key.
    expect(await page.inputValue('#translation-engine')).toBe('apertium');
    expect(await page.isVisible('#translation-key')).toBe(false);
    // The engine is asked once the operator comes to the form, not at each load of the editor.
    expect(await page.isDisabled('#translation-target')).toBe(true);
    await page.focus('#translation-engine');
    await page.waitForFunction(
      () => !(document.querySelector('#translation-target') as HTMLSelectElement).disabled,
      undefined,
      {
        timeout: 30_000,
      },
    );
    // Only what the engine reports: this APy translates English into Spanish and Catalan (and the
    // other pairs installed here), not into French or German, nor into English itself.
    const offered = await targetOptions();
    expect(offered).toEqual(expect.arrayContaining(['es', 'ca']));
    for (const absent of ['fr', 'de', 'en']) expect(offered).not.toContain(absent);

    await addLanguage('es');
    // The added language leaves the select (a room has one translation per language).
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('#translation-target option')).every(
        (o) => (o as HTMLOptionElement).value !== 'es',
      ),
    );
    await addLanguage('ca');
    const rows = await languageRows();
    expect(rows.map((row) => row.target)).toEqual(['es', 'ca']);
    expect(rows[0]!.text).toContain('español (es)');
    expect(rows[0]!.text).toContain(`Apertium at ${apertium.url}`);
    expect(rows[1]!.text).toContain('català (ca)');
    for (const row of rows) expect(['starting', 'translating']).toContain(row.state);
  });

  test('YouTube takes the Spanish track and the archive keeps every track, each downloaded per language', async () => {
    // The destination's track select offers the original and the room's languages.
    await page.waitForFunction(() => document.querySelectorAll('#destination-track option').length === 3);
    expect(
      await page.$$eval('#destination-track option', (nodes) =>
        nodes.map((n) => (n as HTMLOptionElement).value),
      ),
    ).toEqual(['original', 'es', 'ca']);
    await page.selectOption('#destination-kind', 'youtube');
    await page.fill('#destination-url', youtube.url);
    await page.selectOption('#destination-track', 'es');
    await page.click('#destination-form button[type="submit"]');
    await page.selectOption('#destination-kind', 'archive');
    // The archive keeps every track: no track to choose.
    expect(await page.isVisible('#destination-track')).toBe(false);
    await page.click('#destination-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('#destinations .destination').length === 2);
    expect(await page.textContent('#destinations')).toContain('YouTube Live · español (es)');

    // Translation frames as the stage publishes them (final, the original's id, label and ln),
    // published here without originals so that what each consumer gets is known exactly: the
    // stage translates originals only, never a translation.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll<HTMLElement>('#destinations .destination')).every(
          (row) => row.dataset.state !== 'starting',
        ),
      undefined,
      { timeout: 60_000 },
    );
    const frames = [
      { id: 'l-1', es: 'Buenos días a todos.', ca: 'Bon dia a tothom.' },
      { id: 'l-2', es: 'La reunión empieza ahora.', ca: 'La reunió comença ara.' },
    ];
    for (const frame of frames) {
      publisher.publish({ final: frame.es, id: frame.id, label: 'translation', ln: 'es' });
      publisher.publish({ final: frame.ca, id: frame.id, label: 'translation', ln: 'ca' });
    }
    await until(
      'the Spanish captions on the YouTube stand-in',
      () =>
        youtube.accepted
          .map((post) => post.body)
          .join('')
          .includes('La reunión empieza ahora.'),
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${logs()}`);
    });
    const sentToYouTube = youtube.accepted.map((post) => post.body).join('');
    expect(sentToYouTube).toContain('Buenos días a todos.');
    expect(sentToYouTube).not.toContain('Bon dia');
    expect(youtube.violations).toEqual([]);

    // The session downloads per language: the Spanish WebVTT holds the Spanish captions.
    await page.waitForSelector(
      '#archive-sessions .archive-track[data-track="es"] button[data-format="vtt"]',
      {
        timeout: 30_000,
      },
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#archive-sessions .archive-track[data-track="es"] button[data-format="vtt"]'),
    ]);
    const cues = parseWebVtt(readFileSync((await download.path())!, 'utf8')).map((cue) => cue.text);
    expect(cues).toEqual(frames.map((frame) => frame.es));
    expect(download.suggestedFilename()).toMatch(/\.es\.vtt$/);
    // Every track of the session: the original (always listed), Catalan and Spanish.
    expect(
      await page.$$eval('#archive-sessions li:first-child .archive-track', (nodes) =>
        nodes.map((n) => `${(n as HTMLElement).dataset.track}:${n.querySelectorAll('button').length}`),
      ),
    ).toEqual(['original:3', 'ca:3', 'es:3']);
    await screenshot(page, 'editor-languages-panel');
    // The panel as an operator meets it (rows, selects, per-track downloads): nothing serious for axe.
    expect((await axeViolations(page)).filter(serious)).toEqual([]);
  });

  test('names are kept for the room; a LibreTranslate key goes to the service and is never shown back', async () => {
    await page.fill('#vocabulary', 'Montserrat\nSagrada Família\n');
    await page.click('#vocabulary-form button[type="submit"]');
    await page.waitForFunction(
      () => document.querySelector('#languages-status')?.textContent === 'Saved 2 names',
    );

    await page.selectOption('#translation-engine', 'libretranslate');
    expect(await page.isVisible('#translation-key')).toBe(true);
    expect(await page.getAttribute('#translation-key', 'type')).toBe('password');
    await page.fill('#translation-url', libre.url);
    await page.fill('#translation-key', LIBRE_KEY);
    await page.click('#translation-list');
    await addLanguage('fr');
    expect(await page.inputValue('#translation-key')).toBe('');
    const row = (await languageRows()).find((r) => r.target === 'fr')!;
    expect(row.text).toContain(`LibreTranslate at ${new URL(libre.url).origin}`);
    expect(row.text).toContain(`key …${LIBRE_KEY.slice(-4)}`);
    expect(await page.content()).not.toContain(LIBRE_KEY);
    expect(libre.violations).toEqual([]);

    // Removed: its row goes, and French is offered again.
    await page.click('#translations .translation-row[data-target="fr"] button');
    await page.waitForFunction(
      () => !document.querySelector('#translations .translation-row[data-target="fr"]'),
    );

    await page.reload();
    await page.waitForFunction(
      () => (document.querySelector('#vocabulary') as HTMLTextAreaElement).value !== '',
      undefined,
      {
        timeout: 30_000,
      },
    );
    expect(await page.inputValue('#vocabulary')).toBe('Montserrat\nSagrada Família');
    expect(errors).toEqual([]);
  });

  test("the links hub offers the room's languages for the overlay and the audience link", async () => {
    const hub = await page.context().newPage();
    const hubErrors = watchErrors(hub);
    await hub.goto(`${stack.uiOrigin}/links.html`);
    await hub.fill('#output-room', ROOM);
    await hub.fill('#output-read', stack.tokens.outputRead);
    await hub.fill('#output-write', stack.tokens.outputWrite);
    await hub.waitForFunction(
      () => document.querySelectorAll('#audience-ln option').length === 3,
      undefined,
      {
        timeout: 30_000,
      },
    );
    expect(
      await hub.$$eval('#audience-ln option', (nodes) =>
        nodes.map((n) => `${(n as HTMLOptionElement).value}=${n.textContent}`),
      ),
    ).toEqual(['original=Original', 'es=español', 'ca=català']);
    await hub.selectOption('#audience-ln', 'es');
    expect(new URLSearchParams(new URL(await hub.inputValue('#audience-link')).hash.slice(1)).get('ln')).toBe(
      'es',
    );
    expect(await hub.isVisible('#audience-qr')).toBe(true);
    await hub.selectOption('#overlay-ln', 'ca');
    expect(new URL(await hub.inputValue('#overlay-link')).searchParams.get('ln')).toBe('ca');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
    expect(hubErrors).toEqual([]);
    await hub.close();
  });
});
