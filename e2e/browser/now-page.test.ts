/**
 * The public "captioning now" page in chromium against the real relay (with its rooms store), the
 * real calendar (its own origin) and the UI service (calendar-day.ts), with the main hall bound to
 * the Janson venue and captioned: the rooms with read links only (no write token anywhere in its
 * HTML), a short link forwarded, a door sheet per room in print; each bound room's current and
 * next talk and today's finished talks with their transcript links (the events' `captions` field;
 * only http(s) links), a room by hand without any (issue 41); a reader's phone; a calendar that
 * stops answering leaves the rooms listed and says so; axe finds nothing serious.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe-audit.js';
import { phoneContext, screenshot, watchErrors } from './browser.js';
import { type CalendarDay, hhmm, startCalendarDay } from './calendar-day.js';
import { fragmentOf, layout } from './rooms-pages.js';

jest.setTimeout(120_000);

let day: CalendarDay;
let writer: RelayPublisher | undefined;

beforeAll(async () => {
  day = await startCalendarDay();
  await day.stack.patch('main-hall', { schedule: { venue: day.venues.janson, leadSeconds: 600 } });
  // The main hall is captioned (its editor's writer stays joined): it reads as live, in English.
  const main = await day.room('main-hall');
  writer = createPublisher({
    url: day.stack.ui.relayUrl,
    room: main.outputRoom,
    token: main.tokens.outputWrite,
  });
  writer.publish({ final: 'Shown in the main hall.', id: 'o-1', ln: 'en' });
}, 300_000);

afterAll(async () => {
  writer?.close();
  await day?.stop();
});

const hasText = (page: Page, selector: string, text: string) => day.hasText(page, selector, text);
const talk = (title: Parameters<CalendarDay['talk']>[0]) => day.talk(title);

describe('the rooms, their doors and short links', () => {
  test('the rooms with read links only: no write token anywhere in its HTML', async () => {
    const rooms = await day.stack.rooms();
    const page = await day.desk.newPage();
    const pageErrors = watchErrors(page);
    await page.goto(`${day.stack.hub}now.html`);
    await page.locator(`#now-rooms li[data-id="${rooms.at(-1)!.id}"]`).waitFor();
    expect(await page.$$eval('#now-rooms > li', (items) => items.map((item) => item.dataset.id))).toEqual(
      rooms.map((room) => room.id),
    );
    for (const room of rooms) {
      const href = await page.locator(`#now-rooms li[data-id="${room.id}"] h2 a`).getAttribute('href');
      expect(href?.startsWith(`${day.stack.hub}audience.html#`)).toBe(true);
      expect(fragmentOf(href)).toEqual({
        relayUrl: day.stack.ui.relayUrl,
        room: room.outputRoom,
        relayReadToken: room.tokens.outputRead,
      });
    }
    const html = await page.content();
    for (const room of rooms)
      for (const token of [room.tokens.sourceRead, room.tokens.sourceWrite, room.tokens.outputWrite])
        expect(html).not.toContain(token);
    // The main hall has a caption writer (beforeAll); the plenary never had one.
    await hasText(page, '#now-rooms li[data-id="main-hall"] .now-state', 'Captioning now · English');
    await hasText(page, '#now-rooms li[data-id="plenary"] .now-state', 'Not live');
    expect((await axeViolations(page)).filter(serious)).toEqual([]);

    // Printed: a door sheet per room (name, QR code, short link), nothing of the screen page.
    await page.emulateMedia({ media: 'print' });
    expect(
      await page.locator('.sheet').evaluateAll((nodes) => nodes.filter((n) => n.checkVisibility()).length),
    ).toBe(rooms.length);
    expect(await page.locator('.page-header').isVisible()).toBe(false);
    await hasText(
      page,
      '#now-rooms li[data-id="room-b"] .sheet-link',
      `${new URL(day.stack.hub).host}/now.html?room=room-b`,
    );
    // One room's button prints its sheet alone (the print dialog itself left out).
    await page.emulateMedia({ media: 'screen' });
    await page.evaluate(() => {
      window.print = () => undefined;
    });
    await page.getByRole('button', { name: 'Print door sheet of Room B' }).click();
    await page.emulateMedia({ media: 'print' });
    expect(
      await page
        .locator('.now-room')
        .evaluateAll((nodes) =>
          nodes.filter((n) => n.checkVisibility()).map((n) => (n as HTMLElement).dataset.id),
        ),
    ).toEqual(['room-b']);
    expect(await page.locator('li[data-id="room-b"] .sheet canvas').isVisible()).toBe(true);
    await screenshot(page, 'rooms-door-sheet');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  test("a short link with no token opens the room's captions", async () => {
    const page = await day.desk.newPage();
    await page.goto(`${day.stack.hub}now.html?room=room-b`);
    await page.waitForURL(/\/audience\.html/);
    await page.goto(`${day.stack.hub}now.html?room=nowhere`);
    await hasText(page, '#now-status', 'There is no room "nowhere" here: choose one below.');
    await page.close();
  });
});

describe('the talks of a room that follows a venue', () => {
  test("a bound room's current and next talk, and today's finished talks; a room by hand has none", async () => {
    const page = await day.desk.newPage();
    const pageErrors = watchErrors(page);
    await page.goto(`${day.stack.hub}now.html`);
    const main = '#now-rooms li[data-id="main-hall"]';
    const now = talk('Captions for everyone');
    const next = talk('Closing panel');
    await hasText(
      page,
      `${main} .now-current`,
      `Now: Captions for everyone · ${hhmm(now.start)}–${hhmm(now.end)}`,
    );
    await hasText(page, `${main} .now-next`, `Next: Closing panel · ${hhmm(next.start)}–${hhmm(next.end)}`);
    await hasText(page, `${main} summary`, "Transcripts of today's talks (2)");
    await page.locator(`${main} summary`).click();
    // The talk that ended last comes first; none of them has a transcript yet.
    const rust = talk('Rust in the kernel');
    expect(await page.locator(`${main} .now-transcript-talk`).allTextContents()).toEqual([
      `Rust in the kernel · ${hhmm(rust.start)}–${hhmm(rust.end)}`,
      `Opening · ${hhmm(talk('Opening').start)}–${hhmm(talk('Opening').end)}`,
    ]);
    expect(await page.locator(`${main} .now-transcript-none`).allTextContents()).toEqual([
      'Transcript not published',
      'Transcript not published',
    ]);
    expect(await page.locator('#now-rooms li[data-id="room-b"] .now-talks').isVisible()).toBe(false);
    expect(await page.locator('#now-rooms li[data-id="plenary"] .now-talks').isVisible()).toBe(false);
    expect((await axeViolations(page)).filter(serious)).toEqual([]);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  /** The field as the scheduler writes it once a talk ended: one transcript per track. */
  const captions = (room: string, id: number, tracks: string[]) => ({
    room,
    live: null,
    transcripts: tracks.map((track) => ({
      track,
      srt: `https://captions.example.org/transcripts/${id}/${track}.srt`,
      vtt: `https://captions.example.org/transcripts/${id}/${track}.vtt`,
      txt: `https://captions.example.org/transcripts/${id}/${track}.txt`,
    })),
  });

  async function expectTranscriptLinks(page: Page, id: number): Promise<void> {
    const main = '#now-rooms li[data-id="main-hall"]';
    await page.locator(`${main} summary`).click();
    for (const [track, name] of [
      ['original', 'Original language'],
      ['de', 'German'],
    ])
      for (const [ext, text] of [
        ['srt', 'SRT'],
        ['vtt', 'WebVTT'],
        ['txt', 'Text'],
      ]) {
        const link = page.getByRole('link', { name: `${text} transcript of Rust in the kernel, ${name}` });
        expect(await link.getAttribute('href')).toBe(
          `https://captions.example.org/transcripts/${id}/${track}.${ext}`,
        );
      }
    // Opening has none: it says so rather than linking nowhere.
    expect(await page.locator(`${main} .now-transcript-none`).allTextContents()).toEqual([
      'Transcript not published',
    ]);
    expect((await axeViolations(page)).filter(serious)).toEqual([]);
  }

  test("a finished talk's transcripts from its event's captions field: one line per track", async () => {
    // Seeded into the real calendar's answer on its way to the page: a third track whose link is
    // not http(s) (the calendar refuses one; a page must not trust that) must never become a link.
    const rust = talk('Rust in the kernel');
    const page = await day.desk.newPage();
    const pageErrors = watchErrors(page);
    await page.route(
      (url) => url.href.startsWith(day.calendar.apiUrl) && url.pathname.endsWith('/events'),
      async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { events: Record<string, unknown>[] };
        for (const event of body.events)
          if (event.id === rust.id) {
            const field = captions('main-hall', rust.id, ['original', 'de', 'fr']);
            field.transcripts[2]!.srt = 'javascript:alert(1)';
            event.captions = field;
          }
        await route.fulfill({ response, json: body });
      },
    );
    await page.goto(`${day.stack.hub}now.html`);
    await hasText(page, '#now-rooms li[data-id="main-hall"] summary', "Transcripts of today's talks (2)");
    await expectTranscriptLinks(page, rust.id);
    expect(await page.locator('#now-rooms li[data-id="main-hall"] .now-tracks > li').count()).toBe(2);
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
    await screenshot(page, 'now-talks');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  test('the field written through the calendar API, as the scheduler does, reaches the page', async () => {
    const rust = talk('Rust in the kernel');
    const field = captions('main-hall', rust.id, ['original', 'de']);
    const written = await day.calendar.call('POST', `events/${rust.id}`, { captions: field });
    expect(written.captions).toEqual(field);
    const page = await day.desk.newPage();
    await page.goto(`${day.stack.hub}now.html`);
    await hasText(page, '#now-rooms li[data-id="main-hall"] summary', "Transcripts of today's talks (2)");
    await expectTranscriptLinks(page, rust.id);
    await page.close();
  });

  test('on a phone: a room with its talks fits the width', async () => {
    const phone = await phoneContext(day.browser);
    try {
      const page = await phone.newPage();
      await page.goto(`${day.stack.hub}now.html`);
      await page.locator('#now-rooms li[data-id="main-hall"] .now-current').waitFor();
      expect(await layout(page, '#now-rooms > li', 2000)).toEqual({ sideways: false, bad: [] });
    } finally {
      await phone.close();
    }
  });
});

describe('the calendar stops answering', () => {
  test('the public page still lists the rooms and says the programme cannot be read', async () => {
    await day.calendar.process.stop();
    const page = await day.desk.newPage();
    await page.goto(`${day.stack.hub}now.html`);
    await page.locator('#now-rooms li[data-id="main-hall"]').waitFor();
    await hasText(
      page,
      '#now-calendar',
      'The programme cannot be read just now (The calendar cannot be reached). Trying again…',
    );
    expect(await page.locator('#now-rooms > li').count()).toBe(3);
    await page.close();
  });
});
