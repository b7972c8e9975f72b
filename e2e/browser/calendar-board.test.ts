/**
 * The rooms board when the calendar runs the day (issue 41), in chromium against the real relay
 * (with its rooms store), the real calendar (a process on PGlite with an editor's token, on an
 * origin of its own as under `pnpm start`) and the UI service pointing at both (calendar-day.ts):
 * the organiser binds a room to a venue from its Schedule dialog and holds it on, off and back by
 * keyboard, the relay agreeing each time and the row saying it with the venue's talk now; a room
 * is unbound; a row's Manage menu works by keyboard; 40 rooms, half of them bound, still read one
 * line each on 1366x768; a calendar that stops answering leaves the rows' talks and says so; axe
 * finds nothing serious throughout.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { axeViolations, serious } from './axe-audit.js';
import { screenshot, watchErrors } from './browser.js';
import { type CalendarDay, hhmm, startCalendarDay } from './calendar-day.js';
import { layout, openHub, row } from './rooms-pages.js';

jest.setTimeout(120_000);

let day: CalendarDay;
let hub: Page;
let errors: string[];

beforeAll(async () => {
  day = await startCalendarDay();
}, 300_000);

afterAll(async () => {
  await day?.stop();
});

const hasText = (page: Page, selector: string, text: string) => day.hasText(page, selector, text);
const cell = (id: string, part: 'line' | 'talk') => `#rooms tr[data-id="${id}"] .schedule-${part}`;
const active = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));

/** Presses Enter on the dialog's button named `name` (the keyboard, not a click). */
async function press(page: Page, name: string): Promise<void> {
  await page.getByRole('dialog').getByRole('button', { name, exact: true }).focus();
  await page.keyboard.press('Enter');
}

describe('the board: a room follows a venue, and the hand', () => {
  test('bind by keyboard, hold on, hold off, back to schedule: the relay agrees, the row says it', async () => {
    hub = await openHub(day.desk, day.stack.hub, day.stack.apiKey);
    errors = watchErrors(hub);
    await hasText(hub, cell('main-hall', 'line'), 'By hand');
    await row(hub, 'main-hall').getByRole('button', { name: 'Schedule of Main hall: By hand' }).focus();
    await hub.keyboard.press('Enter');
    const dialog = hub.getByRole('dialog', { name: 'Schedule of Main hall' });
    await dialog.waitFor();
    // The venues are the calendar's; a room by hand has no hand to take.
    await hub.waitForFunction(() => document.querySelectorAll('#room-venue option').length === 3);
    expect(await hub.locator('#room-venue option').allTextContents()).toEqual([
      'No venue: by hand',
      'Janson',
      'K.1.105',
    ]);
    expect(await hub.evaluate(() => document.activeElement?.id)).toBe('room-venue');
    expect(await dialog.getByRole('button', { name: 'Hold on: Main hall' }).isVisible()).toBe(false);

    await dialog.getByRole('combobox', { name: 'Follows the talks of' }).selectOption({ label: 'Janson' });
    await dialog.getByRole('spinbutton', { name: /^Lead/ }).fill('10');
    await hub.keyboard.press('Enter');
    await hasText(hub, '#room-schedule-state', 'Main hall: Follows venue Janson (lead 10 min, tail 5 min)');
    expect((await day.room('main-hall')).schedule).toEqual({
      venue: day.venues.janson,
      leadSeconds: 600,
      tailSeconds: 300,
      hold: null,
    });
    expect(await hub.locator('#room-schedule-state').getAttribute('role')).toBe('status');

    await press(hub, 'Hold on: Main hall');
    await hasText(hub, '#room-schedule-state', 'Main hall: Held on by hand · venue Janson');
    expect((await day.room('main-hall')).schedule?.hold).toBe('on');
    expect(
      await dialog.getByRole('button', { name: 'Hold on: Main hall' }).getAttribute('aria-pressed'),
    ).toBe('true');
    await hasText(hub, cell('main-hall', 'line'), 'Held on by hand · venue Janson');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);

    await press(hub, 'Hold off: Main hall');
    await hasText(hub, '#room-schedule-state', 'Main hall: Held off by hand · venue Janson');
    expect((await day.room('main-hall')).schedule?.hold).toBe('off');
    await press(hub, 'Back to schedule: Main hall');
    await hasText(hub, '#room-schedule-state', 'Main hall: Follows venue Janson (lead 10 min, tail 5 min)');
    expect((await day.room('main-hall')).schedule?.hold).toBeNull();

    // Escape closes it and the focus is back where it was.
    await hub.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await active(hub)).toBe('Schedule of Main hall: Follows venue Janson (lead 10 min, tail 5 min)');
    await hasText(hub, cell('main-hall', 'line'), 'Follows venue Janson (lead 10 min, tail 5 min)');
    const now = day.talk('Captions for everyone');
    await hasText(hub, cell('main-hall', 'talk'), `Now, until ${hhmm(now.end)}: Captions for everyone`);
    expect(errors).toEqual([]);
  });

  test('another room bound, its next talk on the row, then unbound: by hand again', async () => {
    await row(hub, 'room-b').getByRole('button', { name: 'Schedule of Room B: By hand' }).click();
    const dialog = hub.getByRole('dialog', { name: 'Schedule of Room B' });
    await dialog.getByRole('combobox', { name: 'Follows the talks of' }).selectOption({ label: 'K.1.105' });
    await dialog.getByRole('button', { name: 'Save schedule' }).click();
    await hasText(hub, '#room-schedule-state', 'Room B: Follows venue K.1.105 (lead 5 min, tail 5 min)');
    const next = day.talk('Lightning talks');
    await hasText(hub, cell('room-b', 'talk'), `Next at ${hhmm(next.start)}: Lightning talks`);

    await dialog
      .getByRole('combobox', { name: 'Follows the talks of' })
      .selectOption({ label: 'No venue: by hand' });
    await dialog.getByRole('button', { name: 'Save schedule' }).click();
    await hasText(hub, '#room-schedule-state', 'Room B: By hand');
    expect((await day.room('room-b')).schedule).toBeNull();
    await hasText(hub, cell('room-b', 'line'), 'By hand');
    expect(await hub.locator(cell('room-b', 'talk')).isVisible()).toBe(false);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(errors).toEqual([]);
  });

  test("a row's Manage menu by keyboard: its first item takes the focus, Escape brings it back", async () => {
    const manage = row(hub, 'room-b').getByRole('button', { name: 'Manage Room B' });
    await manage.focus();
    await hub.keyboard.press('Enter');
    expect(await active(hub)).toBe('Rename Room B');
    expect(await manage.getAttribute('aria-expanded')).toBe('true');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
    await hub.keyboard.press('Escape');
    expect(await active(hub)).toBe('Manage Room B');
    expect(await row(hub, 'room-b').locator('.manage-menu').isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});

describe('a conference of 40 rooms, half of them bound', () => {
  beforeAll(async () => {
    const have = (await day.stack.rooms()).length;
    for (let n = have + 1; n <= 40; n += 1) {
      const room = await day.stack.create(`Room ${n} (Building K, level ${n % 4})`);
      if (n % 2 === 0)
        await day.stack.patch(room.id, {
          schedule: { venue: n % 4 === 0 ? day.venues.janson : day.venues.k },
        });
      if (n % 8 === 0) await day.stack.patch(room.id, { hold: 'on' });
    }
  });

  test('on 1366x768: every room on one line with its schedule and talk, no sideways scrolling', async () => {
    const page = await openHub(day.desk, day.stack.hub, day.stack.apiKey);
    await row(page, 'room-40-building-k-level-0').waitFor({ timeout: 15_000 });
    await hasText(page, cell('room-40-building-k-level-0', 'line'), 'Held on by hand · venue Janson');
    await hasText(
      page,
      cell('room-38-building-k-level-2', 'talk'),
      `Next at ${hhmm(day.talk('Lightning talks').start)}: Lightning talks`,
    );
    const { sideways, bad } = await layout(page, '#rooms tr.room', 48);
    expect({ sideways, bad }).toEqual({ sideways: false, bad: [] });
    expect((await axeViolations(page)).filter(serious)).toEqual([]);
    await screenshot(page, 'rooms-board-40-schedules');
    await page.close();
  });
});

describe('the calendar stops answering', () => {
  test('the rows keep their talks, the board says why, the dialog too', async () => {
    await day.calendar.process.stop();
    await row(hub, 'main-hall')
      .getByRole('button', { name: /^Schedule of Main hall/ })
      .click();
    const problem = 'The calendar cannot be read: The calendar cannot be reached.';
    await hasText(hub, '#room-venue-hint', problem);
    await hasText(hub, '#rooms-calendar', `${problem} Its talks are as it last said.`);
    await hub.keyboard.press('Escape');
    const now = day.talk('Captions for everyone');
    await hasText(hub, cell('main-hall', 'talk'), `Now, until ${hhmm(now.end)}: Captions for everyone`);
  });
});
