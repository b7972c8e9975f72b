/// <reference lib="dom" />
/**
 * The public "captioning now" page (`now.html`, no token): the caption rooms of the relay's
 * `GET /public/rooms`, each with its languages, live or not, and its audience link (the output
 * room's read token, in the fragment only); printed, one door sheet per room with its name, the
 * audience link's QR code and its short link. The short link (`now.html?room=<id>`, no token)
 * forwards to the room's audience page. A room bound to a calendar venue also shows its current
 * and next talk and the transcripts of today's finished talks (now-talks.ts), from the calendar's
 * public API (`SITE_CONFIG.calendarApiUrl`), read only when some room has a venue. Refreshed every
 * 10 s (the calendar every minute, or at once when a room gets a venue), rows updated in place.
 */
import type { PublicCaptionRoom } from '@live-captions/protocol';
import { audienceUrl } from '../lib/audience-link.js';
import { CalendarDay } from '../lib/calendar-day.js';
import { byId, element, languageName, setStatus, siteConfig } from '../lib/dom.js';
import { requestedRoom, roomStateLine } from '../lib/now-rooms.js';
import { drawQr } from '../lib/qr-canvas.js';
import { shortRoomLink } from '../lib/room-links.js';
import { readerFormats } from '../lib/room-talks.js';
import { publicRooms } from '../lib/rooms-client.js';
import { requestProblem } from '../lib/service-request.js';
import { newTalksBlock } from './now-talks.js';

const REFRESH_MS = 10_000;
/** Talks change by the minute; a transcript appears within a minute of its talk's end. */
const CALENDAR_REFRESH_MS = 60_000;
const site = new URL('./', location.href).href;
const { relayApiUrl, relayUrl, calendarApiUrl } = siteConfig();
const list = byId<HTMLUListElement>('now-rooms');
const status = byId('now-status');
const calendarStatus = byId('now-calendar');
const calendar = calendarApiUrl ? new CalendarDay(calendarApiUrl) : undefined;
const formats = readerFormats();

interface Row {
  item: HTMLLIElement;
  update(room: PublicCaptionRoom): void;
}
const rows = new Map<string, Row>();

function newRow(first: PublicCaptionRoom, relay: string): Row {
  const item = element('li', '', 'now-room');
  item.dataset.id = first.id;
  const heading = element('h2');
  const link = element('a');
  heading.append(link);
  const state = element('p', '', 'now-state');
  const talks = newTalksBlock(formats);
  const print = element('button', 'Print door sheet', 'screen-only');
  print.type = 'button';
  // The door sheet: shown only in print (the print stylesheet), one page per room.
  const sheet = element('div', '', 'sheet');
  const sheetLead = element('p', 'Live captions of', 'sheet-lead');
  const sheetName = element('p', '', 'sheet-name');
  const qr = element('canvas');
  qr.setAttribute('role', 'img');
  const sheetHow = element('p', 'Scan the code with your phone, or open', 'sheet-how');
  const sheetLink = element('p', '', 'sheet-link');
  sheet.append(sheetLead, sheetName, qr, sheetHow, sheetLink);
  item.append(heading, state, talks.block, print, sheet);
  let room = first;
  let drawn = '';
  print.addEventListener('click', () => {
    forgetPrinting();
    item.dataset.printingThis = '';
    document.body.dataset.printing = room.id;
    window.print();
  });
  return {
    item,
    update(next) {
      room = next;
      const href = audienceUrl(site, relay, room.outputRoom, room.outputReadToken);
      item.dataset.live = String(room.live);
      if (link.href !== href) link.href = href;
      link.textContent = room.name;
      state.textContent = roomStateLine(room, languageName);
      const venue = room.venue;
      const known = venue !== null && calendar?.read && calendar.knows(venue);
      talks.show(known ? calendar!.day(venue, Date.now()) : undefined, Date.now());
      print.setAttribute('aria-label', `Print door sheet of ${room.name}`);
      sheetName.textContent = room.name;
      sheetLink.textContent = shortRoomLink(site, room.id).replace(/^https?:\/\//, '');
      qr.setAttribute('aria-label', `QR code of the captions of ${room.name}`);
      if (drawn !== href) {
        drawQr(qr, href);
        drawn = href;
      }
    },
  };
}

function show(rooms: PublicCaptionRoom[], relay: string): void {
  const seen = new Set<string>();
  const items = rooms.map((room) => {
    seen.add(room.id);
    let row = rows.get(room.id);
    if (!row) {
      row = newRow(room, relay);
      rows.set(room.id, row);
    }
    row.update(room);
    return row.item;
  });
  for (const id of [...rows.keys()]) if (!seen.has(id)) rows.delete(id);
  const current = Array.from(list.children);
  if (current.length !== items.length || current.some((node, index) => node !== items[index]))
    list.replaceChildren(...items);
  const live = rooms.filter((room) => room.live).length;
  setStatus(
    status,
    rooms.length === 0
      ? 'No caption rooms yet.'
      : `${rooms.length} room${rooms.length === 1 ? '' : 's'}, ${live} captioning now.`,
    rooms.length === 0 ? 'idle' : 'ok',
  );
}

/** The venues asked of the calendar last, and when. */
let calendarAsked = { venues: '', at: 0 };

/**
 * Reads the calendar when a room's venue is new to it, or a minute after the last read, then
 * gives the rows their talks (the rooms are on the page already: a slow calendar delays nothing).
 */
async function readCalendar(rooms: PublicCaptionRoom[]): Promise<void> {
  const venues = [...new Set(rooms.flatMap((room) => (room.venue === null ? [] : [room.venue])))];
  const key = venues.sort((a, b) => a - b).join(',');
  if (!calendar || venues.length === 0) return;
  if (key === calendarAsked.venues && Date.now() - calendarAsked.at < CALENDAR_REFRESH_MS) return;
  calendarAsked = { venues: key, at: Date.now() };
  await calendar.refresh(venues);
  calendarStatus.hidden = !calendar.problem;
  if (calendar.problem)
    setStatus(
      calendarStatus,
      `The programme cannot be read just now (${calendar.problem}). Trying again…`,
      'warn',
    );
  for (const room of rooms) rows.get(room.id)?.update(room);
}

async function refresh(apiUrl: string, relay: string): Promise<void> {
  let rooms: PublicCaptionRoom[];
  try {
    rooms = await publicRooms(apiUrl);
    const wanted = requestedRoom(location.href);
    const room = wanted ? rooms.find((r) => r.id === wanted) : undefined;
    // A short link: straight to the room's captions (replace: Back returns where the reader was).
    if (room) return location.replace(audienceUrl(site, relay, room.outputRoom, room.outputReadToken));
    show(rooms, relay);
    if (wanted) setStatus(status, `There is no room "${wanted}" here: choose one below.`, 'warn');
  } catch (error) {
    setStatus(status, `Cannot list the rooms: ${requestProblem(error)}. Trying again…`, 'error');
    return;
  }
  await readCalendar(rooms);
}

/** Back to printing every room's sheet (Ctrl+P, "Print all door sheets"). */
function forgetPrinting(): void {
  delete document.body.dataset.printing;
  for (const item of Array.from(list.querySelectorAll<HTMLElement>('[data-printing-this]')))
    delete item.dataset.printingThis;
}

byId('print-all').addEventListener('click', () => {
  forgetPrinting();
  window.print();
});
addEventListener('afterprint', forgetPrinting);

if (!relayApiUrl || !relayUrl) {
  setStatus(status, 'This site lists no rooms (it has no relay address).', 'warn');
} else {
  void refresh(relayApiUrl, relayUrl);
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh(relayApiUrl, relayUrl);
  }, REFRESH_MS);
}
