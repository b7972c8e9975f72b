/**
 * A day of talks for the calendar suites (calendar-board, calendar-now): the real calendar
 * (calendar-stack.ts) with two venues and their talks around now, the caption rooms stack with
 * the UI pointing at that calendar, two rooms, and a desk browser in a zone where it is about noon
 * (so that the day's talks never cross midnight, whatever the hour the suite runs).
 */
import type { CaptionRoom } from '@live-captions/protocol';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { type CalendarProcess, startCalendar } from './calendar-stack.js';
import { processLogs } from './relay-ui.js';
import { waitForText } from './rooms-pages.js';
import { type RoomsStack, startRoomsStack } from './rooms-stack.js';

const MIN = 60_000;
/** The talks' reference minute: a suite runs well within the 20 min the current talk lasts. */
const T0 = Math.floor(Date.now() / MIN) * MIN;
const offset = 12 - new Date(T0).getUTCHours();
/** The desk's zone: about noon at T0 (Etc/GMT-3 is UTC+3). */
export const ZONE = offset === 0 ? 'Etc/UTC' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
const clock = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: ZONE });
/** A time as the pages write it on the desk (en-GB, ZONE). */
export const hhmm = (ms: number) => clock.format(ms);

/** Janson's day, in minutes from T0: two talks over, one under way, one to come; K.1.105's one. */
const PLAN = [
  ['janson', 'Opening', -90, -60],
  ['janson', 'Rust in the kernel', -50, -20],
  ['janson', 'Captions for everyone', -10, 20],
  ['janson', 'Closing panel', 30, 60],
  ['k', 'Lightning talks', 25, 40],
] as const;
export type Title = (typeof PLAN)[number][1];

export interface CalendarDay {
  calendar: CalendarProcess;
  stack: RoomsStack;
  browser: Browser;
  /** 1366x768, en-GB, in ZONE. */
  desk: BrowserContext;
  venues: { janson: number; k: number };
  talk(title: Title): { id: number; start: number; end: number };
  logs(): string;
  hasText(page: Page, selector: string, text: string): Promise<void>;
  room(id: string): Promise<CaptionRoom>;
  stop(): Promise<void>;
}

/** The day, with the rooms "Main hall" and "Room B" (both by hand) besides the file's plenary. */
export async function startCalendarDay(): Promise<CalendarDay> {
  const calendar = await startCalendar();
  let stack: RoomsStack;
  try {
    stack = await startRoomsStack({ calendarApiUrl: calendar.apiUrl });
  } catch (error) {
    await calendar.stop();
    throw error;
  }
  const venues = { janson: await calendar.venue('Janson'), k: await calendar.venue('K.1.105') };
  const talks = new Map<string, { id: number; start: number; end: number }>();
  for (const [venue, title, from, to] of PLAN) {
    const [start, end] = [T0 + from * MIN, T0 + to * MIN];
    talks.set(title, { id: await calendar.talk(venues[venue], title, start, end), start, end });
  }
  await stack.create('Main hall');
  await stack.create('Room B');
  const browser = await launchBrowser('/dev/null');
  const desk = await browser.newContext({
    viewport: { width: 1366, height: 768 },
    locale: 'en-GB',
    timezoneId: ZONE,
  });
  const logs = () => processLogs([...stack.ui.processes(), calendar.process]);
  return {
    calendar,
    stack,
    browser,
    desk,
    venues,
    talk: (title) => talks.get(title)!,
    logs,
    hasText: (page, selector, text) => waitForText(page, selector, text, logs),
    room: async (id) => (await stack.rooms()).find((room) => room.id === id)!,
    async stop() {
      await browser.close();
      await stack.stop();
      await calendar.stop();
    },
  };
}
