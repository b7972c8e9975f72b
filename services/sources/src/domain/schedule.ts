/**
 * What a caption room bound to a calendar venue should be doing at a moment (pure): whether its
 * stream sources run, which talk its archive is writing, and what each talk's `captions` field in
 * the calendar should say. The scheduler (runner/scheduler.ts) applies it every tick.
 */
import type { CaptionRoomSchedule } from '@live-captions/protocol';

/** One event at the venue, as the calendar's REST API lists it. */
export interface Talk {
  id: number;
  title: string;
  /** Epoch ms (the event's `utc_start_date` / `utc_end_date`). */
  start: number;
  end: number;
  /** The event's `captions` extension field as the calendar holds it now. */
  captions: TalkCaptions | null;
}

/** The calendar event's extension field (services/calendar documents it in `/doc`). */
export interface TalkCaptions {
  room: string;
  live: string | null;
  transcripts: TalkTranscript[];
}

export interface TalkTranscript {
  track: string;
  srt: string;
  vtt: string;
  txt: string;
}

/**
 * Whether the room's sources should run at `now`: from `leadSeconds` before a talk to
 * `tailSeconds` after it, so back-to-back and overlapping talks keep one run going.
 */
export function inWindow(talks: readonly Talk[], schedule: CaptionRoomSchedule, now: number): boolean {
  const lead = schedule.leadSeconds * 1000;
  const tail = schedule.tailSeconds * 1000;
  return talks.some((talk) => talk.start - lead <= now && now < talk.end + tail);
}

/**
 * The talk the archive writes at `now`: the one started last among those not yet past their end
 * plus the tail. A talk's overrun (questions after its end) stays in its transcript until the next
 * talk starts; before the first talk (the lead) and after the last tail, no talk (null).
 */
export function talkAt(talks: readonly Talk[], schedule: CaptionRoomSchedule, now: number): Talk | null {
  const tail = schedule.tailSeconds * 1000;
  let current: Talk | null = null;
  for (const talk of talks)
    if (talk.start <= now && now < Math.max(talk.end, talk.start) + tail)
      if (!current || talk.start > current.start || (talk.start === current.start && talk.id > current.id))
        current = talk;
  return current;
}

/**
 * Whether the sources run: the operator's hold wins; else the calendar, while it answers. While it
 * does not (`fresh` false) the last schedule read still starts talks, but nothing is stopped: a
 * talk that the calendar would have lengthened must not lose its captions to an outage.
 */
export function shouldRun(
  talks: readonly Talk[] | undefined,
  schedule: CaptionRoomSchedule,
  now: number,
  fresh: boolean,
  runningNow: boolean,
): boolean | undefined {
  if (schedule.hold === 'on') return true;
  if (schedule.hold === 'off') return false;
  // Nothing read yet (a replica started during an outage): leave the sources as they are.
  if (talks === undefined) return undefined;
  const wanted = inWindow(talks, schedule, now);
  return fresh ? wanted : wanted || runningNow;
}

/**
 * The `captions` field a talk should carry at `now`: while it runs, where it is live; once it
 * ended, its transcripts (kept as they were if none are known yet); before it starts, what it has.
 */
export function captionsFor(
  talk: Talk,
  now: number,
  room: string,
  liveUrl: string,
  transcripts: TalkTranscript[] | undefined,
): TalkCaptions | null {
  if (now < talk.start) return talk.captions;
  if (now < talk.end) return { room, live: liveUrl, transcripts: talk.captions?.transcripts ?? [] };
  return { room, live: null, transcripts: transcripts ?? talk.captions?.transcripts ?? [] };
}

/**
 * Whether a talk's `captions` field may still need writing at `now`. Not before the talk starts;
 * while it runs and until `settleAt` (its end, the tail and a margin: a translation track may still
 * come); after that only until the final field has been written once (`settled`), and only when
 * there is something to write: the transcripts of a session this replica knows, or a live link
 * left from when it ran. A calendar outage across a talk's end thus delays its links, never loses
 * them, and the day's past talks cost nothing once settled.
 */
export function fieldDue(
  talk: Talk,
  now: number,
  settleAt: number,
  settled: boolean,
  hasSession: boolean,
): boolean {
  if (talk.start > now) return false;
  if (now < settleAt) return true;
  return !settled && (hasSession || (talk.captions?.live ?? null) !== null);
}

/** Whether two values of the field say the same (the scheduler writes only a change). */
export function sameCaptions(a: TalkCaptions | null, b: TalkCaptions | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
