/// <reference lib="dom" />
/**
 * The rooms board's schedules: per row what starts the room's sources (a venue of the calendar,
 * or the operator by hand) and the bound room's talk now or next; and the Schedule dialog of a
 * room, where the organiser binds it to one of the calendar's venues with a lead and a tail, or
 * unbinds it, and takes the hand: Hold on (its sources run whatever the calendar says), Hold off
 * (they stay stopped), Back to schedule. Each change is a PATCH of the relay's room; the dialog
 * says the new state in a polite status line of its own (the board's is behind the modal). The
 * calendar is read anonymously (its public venues and talks), only while some room follows a
 * venue or the dialog is open.
 */
import type { CaptionRoom, CaptionRoomHold, CaptionRoomSchedule } from '@live-captions/protocol';
import { CalendarDay } from '../lib/calendar-day.js';
import { byId, setStatus, siteConfig } from '../lib/dom.js';
import { readerFormats, scheduleLine, talkLine } from '../lib/room-talks.js';
import type { RoomsClient } from '../lib/rooms-client.js';
import type { RoomRow } from './links-room-row.js';

/** The board is one operator's screen: a read every half minute keeps its talks to the minute. */
const CALENDAR_REFRESH_MS = 30_000;
const DEFAULT_MINUTES = 5;

export interface ScheduleInputs {
  rooms(): readonly CaptionRoom[];
  row(id: string): RoomRow | undefined;
  /** Runs a request on the relay, says how it went in `line`, lists the rooms afresh. */
  act(done: string, request: (c: RoomsClient) => Promise<unknown>, line: HTMLElement): Promise<boolean>;
}

const ui = {
  dialog: byId<HTMLDialogElement>('room-schedule-dialog'),
  title: byId('room-schedule-title'),
  state: byId('room-schedule-state'),
  form: byId<HTMLFormElement>('room-schedule-form'),
  venue: byId<HTMLSelectElement>('room-venue'),
  venueHint: byId('room-venue-hint'),
  lead: byId<HTMLInputElement>('room-lead'),
  tail: byId<HTMLInputElement>('room-tail'),
  hand: byId('room-hand'),
  handNone: byId('room-hand-none'),
  holds: [
    [byId<HTMLButtonElement>('room-hold-on'), 'on'],
    [byId<HTMLButtonElement>('room-hold-off'), 'off'],
    [byId<HTMLButtonElement>('room-hold-back'), null],
  ] as const,
  close: byId<HTMLButtonElement>('room-schedule-close'),
  board: byId('rooms-calendar'),
};

export function startSchedules(inputs: ScheduleInputs): {
  paint(room: CaptionRoom): void;
  open(room: CaptionRoom): void;
} {
  const base = siteConfig().calendarApiUrl;
  const calendar = base ? new CalendarDay(base) : undefined;
  const formats = readerFormats();
  let lastRead = 0;
  /** The room whose dialog is open, and what had the focus before. */
  let opened: { id: string; from: Element | null } | undefined;
  let venuesShown = '';

  const venueName = (id: number) => calendar?.venues.get(id)?.name;
  const current = () => inputs.rooms().find((room) => room.id === opened?.id);

  /** The row's schedule line, and for a bound room its talk (or why there is none). */
  function talkOf(schedule: CaptionRoomSchedule): { talk: string | undefined; warn?: boolean } {
    if (!calendar) return { talk: undefined };
    if (!calendar.knows(schedule.venue))
      return { talk: `Venue ${schedule.venue} is not in the calendar`, warn: true };
    if (!calendar.read) return { talk: 'Reading the calendar…' };
    return { talk: talkLine(calendar.day(schedule.venue), Date.now(), formats) };
  }

  function paint(room: CaptionRoom): void {
    const schedule = room.schedule;
    const line = scheduleLine(schedule, schedule ? venueName(schedule.venue) : undefined);
    const { talk, warn } = schedule ? talkOf(schedule) : { talk: undefined, warn: false };
    inputs.row(room.id)?.schedule(line, talk, warn);
    // The first bound room seen: its talks now rather than at the next round.
    if (schedule && calendar && !calendar.read) void read();
  }

  /** Reads the calendar when a room follows a venue (or `force`), at most every half minute. */
  async function read(force = false): Promise<void> {
    if (!calendar) return;
    const venues = inputs.rooms().flatMap((room) => (room.schedule ? [room.schedule.venue] : []));
    if (!force && (venues.length === 0 || Date.now() - lastRead < CALENDAR_REFRESH_MS)) return;
    lastRead = Date.now();
    await calendar.refresh(venues);
    ui.board.hidden = !calendar.problem;
    if (calendar.problem)
      setStatus(
        ui.board,
        `The calendar cannot be read: ${calendar.problem}. Its talks are as it last said.`,
        'warn',
      );
    for (const room of inputs.rooms()) paint(room);
    const room = current();
    if (room) fill(room);
  }

  /** The venue list: "No venue: by hand", the calendar's venues by name, the room's own if gone. */
  function venueOptions(room: CaptionRoom): void {
    const venues = [...(calendar?.venues.values() ?? [])].sort((a, b) => a.name.localeCompare(b.name));
    const bound = room.schedule?.venue;
    const missing = bound !== undefined && !calendar?.venues.has(bound);
    const key = JSON.stringify([venues, missing && bound]);
    if (key !== venuesShown) {
      venuesShown = key;
      const options = [new Option('No venue: by hand', '')];
      for (const venue of venues) options.push(new Option(venue.name, String(venue.id)));
      if (missing) options.push(new Option(`Venue ${bound} (not in the calendar)`, String(bound)));
      ui.venue.replaceChildren(...options);
    }
    ui.venueHint.textContent = !calendar
      ? 'This site has no calendar address (CALENDAR_API_URL): no venues to follow.'
      : calendar.problem
        ? `The calendar cannot be read: ${calendar.problem}.`
        : calendar.read && venues.length === 0
          ? 'The calendar has no venues yet: add them there (or import a schedule).'
          : 'Its stream sources start the lead before each talk at that venue and stop the tail after it.';
  }

  /** The dialog as `room` is now; what is being typed stays when only the talks changed. */
  function fill(room: CaptionRoom, fresh = false): void {
    ui.title.textContent = `Schedule of ${room.name}`;
    venueOptions(room);
    if (fresh) {
      ui.venue.value = room.schedule ? String(room.schedule.venue) : '';
      ui.lead.value = String((room.schedule?.leadSeconds ?? DEFAULT_MINUTES * 60) / 60);
      ui.tail.value = String((room.schedule?.tailSeconds ?? DEFAULT_MINUTES * 60) / 60);
    }
    ui.hand.hidden = !room.schedule;
    ui.handNone.hidden = !!room.schedule;
    for (const [button, hold] of ui.holds) {
      button.setAttribute('aria-label', `${button.textContent}: ${room.name}`);
      if (hold) button.setAttribute('aria-pressed', String(room.schedule?.hold === hold));
    }
  }

  function open(room: CaptionRoom): void {
    opened = { id: room.id, from: document.activeElement };
    fill(room, true);
    setStatus(
      ui.state,
      scheduleLine(room.schedule, room.schedule ? venueName(room.schedule.venue) : undefined),
    );
    ui.dialog.showModal();
    // The venues as the calendar has them now: one was perhaps added a moment ago.
    void read(true);
  }

  /** A change of the open room; the dialog then shows the room as the relay now has it. */
  async function change(
    done: (room: CaptionRoom) => string,
    request: (c: RoomsClient, room: CaptionRoom) => Promise<unknown>,
  ) {
    const room = current();
    if (!room) return;
    const ok = await inputs.act(done(room), (c) => request(c, room), ui.state);
    const now = current();
    if (ok && now) {
      fill(now, true);
      paint(now);
      // A new venue's talks at once rather than at the next half minute.
      if (now.schedule && now.schedule.venue !== room.schedule?.venue) void read(true);
    }
  }

  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const venue = Number(ui.venue.value);
    if (!venue) {
      void change(
        (room) => `${room.name}: By hand`,
        (c, room) => c.schedule(room.id, null),
      );
      return;
    }
    const binding = {
      venue,
      leadSeconds: Math.round(ui.lead.valueAsNumber * 60),
      tailSeconds: Math.round(ui.tail.valueAsNumber * 60),
    };
    // A new venue, lead or tail keeps the hand where it is (the relay keeps the hold).
    const after = (room: CaptionRoom): CaptionRoomSchedule => ({
      ...binding,
      hold: room.schedule?.hold ?? null,
    });
    void change(
      (room) => `${room.name}: ${scheduleLine(after(room), venueName(venue))}`,
      (c, room) => c.schedule(room.id, binding),
    );
  });
  for (const [button, hold] of ui.holds)
    button.addEventListener('click', () => {
      const held = (room: CaptionRoom) =>
        room.schedule && { ...room.schedule, hold: hold as CaptionRoomHold };
      void change(
        (room) =>
          `${room.name}: ${scheduleLine(held(room), room.schedule ? venueName(room.schedule.venue) : undefined)}`,
        (c, room) => c.hold(room.id, hold as CaptionRoomHold),
      );
    });
  ui.close.addEventListener('click', () => ui.dialog.close());
  ui.dialog.addEventListener('close', () => {
    const from = opened?.from;
    opened = undefined;
    if (from instanceof HTMLElement && from.isConnected) from.focus();
  });

  setInterval(() => {
    if (document.visibilityState === 'visible') void read();
  }, 5000);
  return { paint, open };
}
