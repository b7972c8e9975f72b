/**
 * The pages' side of live translation (issue 34 item 4) in chromium, on a relay and the UI started
 * here: a writer publishes originals and translation frames into the output room as the outputs
 * service's translation stage does (`label: "translation"`, `ln`, the original's `id`, final only,
 * a correction is the same id again). The audience page on a phone switches to Spanish and shows
 * only the Spanish lines, keeps that choice through a reload, and opens in Catalan from a link
 * with `ln=ca`; a language not there yet is said and the original shown until it comes; the
 * overlay with `ln=es` shows only Spanish.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client';
import { createPublisher } from '@live-captions/relay-client/node';
import { buildPages } from '@live-captions/web';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type AudienceStack, startAudienceStack } from './audience-stack.js';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, phoneContext, screenshot, watchErrors } from './browser.js';

jest.setTimeout(90_000);

let stack: AudienceStack;
let browser: Browser;
let phone: BrowserContext;
let publisher: RelayPublisher;
let link: string;
const errors: string[] = [];

beforeAll(async () => {
  await buildPages();
  stack = await startAudienceStack();
  browser = await launchBrowser('/dev/null');
  phone = await phoneContext(browser);
  publisher = createPublisher({ url: stack.relayUrl, room: stack.room, token: stack.writeToken });
  link = `${stack.uiUrl}audience.html#${new URLSearchParams({ relayUrl: stack.relayUrl, room: stack.room, relayReadToken: stack.readToken })}`;
}, 120_000);

afterAll(async () => {
  publisher?.close();
  await browser?.close();
  await stack?.stop();
});

const publish = (caption: Parameters<RelayPublisher['publish']>[0]) =>
  expect(publisher.publish(caption)).toBe(true);
/** An original caption and its translations, as the capture page and the stage publish them. */
function said(id: string, en: string, translations: Record<string, string> = {}): void {
  publish({ final: en, id, ln: 'en' });
  for (const [ln, text] of Object.entries(translations))
    publish({ final: text, id, label: 'translation', ln });
}
/** The captions on screen (not the announcer's copy of the latest). */
const transcript = (p: Page) =>
  p.$$eval('#transcript .caption', (nodes) => nodes.map((n) => n.textContent).join('\n'));
const waitForText = (p: Page, text: string, where = '#transcript') =>
  p.waitForFunction(
    ([t, w]) =>
      Array.from(document.querySelectorAll(`${w} .caption, ${w} .caption-line`)).some((n) =>
        n.textContent?.includes(t!),
      ),
    [text, where],
    { timeout: 30_000 },
  );
const options = (p: Page) =>
  p.$$eval('#track option', (nodes) =>
    nodes.map((n) => `${(n as HTMLOptionElement).value}=${n.textContent}`),
  );

describe('the audience page reads in the language chosen', () => {
  let page: Page;

  test('it offers the languages the room carries, named in their own language, and shows only the one chosen', async () => {
    said('t-1', 'Good morning, everyone.', { es: 'Buenos días a todos.', ca: 'Bon dia a tothom.' });
    page = await phone.newPage();
    errors.push(...watchErrors(page));
    await page.goto(link);
    await waitForText(page, 'Good morning, everyone.');
    // The original by default: no translation on screen.
    expect(await transcript(page)).not.toContain('Buenos');
    await page.click('#display-toggle');
    await page.waitForFunction(() => document.querySelectorAll('#track option').length >= 4);
    expect(await options(page)).toEqual([
      'original=English (original)',
      'es=español',
      'ca=català',
      'all=All languages',
    ]);
    expect(await page.$eval('#track option[value="es"]', (n) => (n as HTMLOptionElement).lang)).toBe('es');

    await page.selectOption('#track', 'es');
    await waitForText(page, 'Buenos días a todos.');
    said('t-2', 'The budget comes first.', {
      ca: 'El pressupost és el primer.',
      es: 'El presupuesto va primero.',
    });
    await waitForText(page, 'El presupuesto va primero.');
    // A correction of the translation (the same id again) replaces its line.
    publish({ final: 'Buenos días a todas y todos.', id: 't-1', label: 'translation', ln: 'es' });
    await waitForText(page, 'Buenos días a todas y todos.');
    const text = await transcript(page);
    expect(text).not.toContain('Good morning');
    expect(text).not.toContain('Bon dia');
    expect(text).not.toContain('Buenos días a todos.');
    expect(await page.$$eval('#transcript .caption', (n) => n.length)).toBe(2);
    // The screen reader is told the Spanish lines too.
    await page.waitForFunction(() =>
      document.querySelector('#announcer')?.textContent?.startsWith('Buenos días a todas'),
    );
    // The address carries the choice (a reload reads it), never the token.
    expect(new URL(page.url()).hash).toContain('ln=es');
    expect(page.url()).not.toContain(stack.readToken);
    await screenshot(page, 'translation-audience-es');
  });

  test('a reload keeps Spanish', async () => {
    await page.reload();
    await waitForText(page, 'Buenos días a todas y todos.');
    said('t-3', 'Questions at the end.', { es: 'Preguntas al final.' });
    await waitForText(page, 'Preguntas al final.');
    expect(await page.$eval('#track', (n) => (n as HTMLSelectElement).value)).toBe('es');
    const text = await transcript(page);
    expect(text).not.toContain('Questions at the end.');
    expect(text).not.toContain('Good morning');
    expect(
      await page.evaluate(
        (room) => localStorage.getItem(`live-captions.audience.language.${room}`),
        stack.room,
      ),
    ).toBe('es');
  });

  test('a link with ln=ca opens in Catalan, even on a device that chose Spanish', async () => {
    const catalan = await phone.newPage();
    errors.push(...watchErrors(catalan));
    await catalan.goto(`${link}&ln=ca`);
    await waitForText(catalan, 'El pressupost és el primer.');
    const text = await transcript(catalan);
    expect(text).toContain('Bon dia a tothom.');
    expect(text).not.toContain('Good morning');
    expect(text).not.toContain('Buenos');
    expect(await catalan.$eval('#track', (n) => (n as HTMLSelectElement).value)).toBe('ca');
    await catalan.close();
  });

  test('a language not here yet is said in one line, the original shown until it comes', async () => {
    const german = await phone.newPage();
    errors.push(...watchErrors(german));
    await german.goto(`${link}&ln=de`);
    await waitForText(german, 'Questions at the end.');
    await german.waitForSelector('#language-notice:not([hidden])');
    expect(await german.textContent('#language-notice')).toBe(
      'Deutsch is not here yet: showing the original until it comes.',
    );
    // The notice and the language select (Display open): nothing serious for axe.
    await german.click('#display-toggle');
    expect((await axeViolations(german)).filter(serious)).toEqual([]);
    said('t-4', 'Thank you all.', { de: 'Vielen Dank an alle.' });
    await waitForText(german, 'Vielen Dank an alle.');
    expect(await german.isHidden('#language-notice')).toBe(true);
    expect(await transcript(german)).not.toContain('Thank you all.');
    await german.close();
  });
});

describe('the overlay shows the language of its link', () => {
  test('ln=es: only Spanish, corrections in place', async () => {
    const studio = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
    try {
      const overlay = await studio.newPage();
      errors.push(...watchErrors(overlay));
      await overlay.goto(
        `${stack.uiUrl}overlay.html?ln=es&maxlines=3#${new URLSearchParams({ relayUrl: stack.relayUrl, room: stack.room, relayReadToken: stack.readToken })}`,
      );
      await overlay.waitForFunction(() => document.body.dataset.relay === 'joined', undefined, {
        timeout: 30_000,
      });
      said('o-1', 'Welcome to the council.', { ca: 'Benvinguts al consell.', es: 'Bienvenidos al consejo.' });
      await waitForText(overlay, 'Bienvenidos al consejo.', '#captions');
      publish({ final: 'Bienvenidas y bienvenidos al consejo.', id: 'o-1', label: 'translation', ln: 'es' });
      await waitForText(overlay, 'Bienvenidas y bienvenidos', '#captions');
      said('o-2', 'Item one.', { es: 'Punto uno.' });
      await waitForText(overlay, 'Punto uno.', '#captions');
      const lines = await overlay.$$eval('#captions .caption-line', (nodes) =>
        nodes.map((n) => [n.textContent, n.classList.contains('translation')]),
      );
      expect(lines).toEqual([
        ['Bienvenidas y bienvenidos al consejo.', false],
        ['Punto uno.', false],
      ]);
      expect(await overlay.$eval('#captions', (n) => (n as HTMLElement).lang)).toBe('es');
      await screenshot(overlay, 'translation-overlay-es');
    } finally {
      await studio.close();
    }
  });

  test('no page logged an error', () => {
    expect(errors).toEqual([]);
  });
});
