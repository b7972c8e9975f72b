/**
 * The day's conductor: for every caption room bound to a calendar venue, starts and stops the
 * room's stream sources around the venue's talks, tells the archive which talk the captions belong
 * to, and writes each talk's `captions` field in the calendar (live link, then transcripts).
 *
 * One replica schedules a room at a time (a lease per room, `schedule:<room>`); everything it does
 * is idempotent (a source's `running` flag, the archive's talk, a field written only when it
 * differs), so a replica taking over mid-talk neither restarts a source nor opens a second session.
 * The calendar is read through its REST API every poll; while it does not answer, the last schedule
 * read still starts talks and nothing is stopped.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import type { Leases } from '@live-captions/redis';
import { CheckLoop, type Logger } from '@live-captions/runtime';
import type { ArchiveClient } from '../adapters/archive-client.js';
import type { CalendarClient } from '../adapters/calendar-client.js';
import type { SourcesRepo } from '../adapters/sources-repo.js';
import { captionsFor, fieldDue, sameCaptions, shouldRun, type Talk, talkAt } from '../domain/schedule.js';
import type { Clock } from '../domain/schedule-clock.js';

export interface SchedulerDeps {
  rooms: () => readonly CaptionRoom[];
  repo: SourcesRepo;
  leases: Leases;
  calendar: CalendarClient;
  archive: ArchiveClient;
  /** Applies a change of `running` flags at once (the supervisor's check). */
  applied: () => Promise<void>;
  clock: Clock;
  /** The audience's short link of a room: `now.html?room=<id>` on the ui. */
  liveUrl: (room: string) => string;
  /** Whether `captions` fields may be written (a calendar token is configured). */
  writesCalendar: boolean;
  pollMs: number;
  tickMs: number;
  log: Logger;
}

/** How far around now the schedule is read: a day back (a long talk) and two ahead. */
const BEHIND_MS = 24 * 3600_000;
const AHEAD_MS = 48 * 3600_000;

interface RoomState {
  talks: Talk[] | undefined;
  /** When the last read began (real ms), and whether the last one answered. */
  readAt: number;
  fresh: boolean;
  /** The calendar's absence was logged (once per outage). */
  away: boolean;
  reading: Promise<void> | undefined;
  /** The archive and calendar calls of the room, one at a time. */
  effecting: Promise<void> | undefined;
  /** The talk the archive was last told, and each talk's archive session. */
  marked: number | null | undefined;
  sessions: Map<number, string>;
  /** Talks whose final field was written after their tail (nothing more to write). */
  settled: Set<number>;
  problem: string | undefined;
}

export class Scheduler {
  private readonly state = new Map<string, RoomState>();
  private readonly loop: CheckLoop;

  constructor(private readonly deps: SchedulerDeps) {
    this.loop = new CheckLoop(() => this.tick(), deps.tickMs);
  }

  start(): void {
    this.loop.start();
  }

  check(): Promise<void> {
    return this.loop.run();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    const states = [...this.state.values()];
    await Promise.all(states.flatMap((state) => [state.reading, state.effecting]));
    await Promise.all([...this.state.keys()].map((room) => this.deps.leases.release(`schedule:${room}`)));
  }

  /**
   * Every second: each bound room's sources set from what is known now. The calendar's reads and
   * the archive's and calendar's writes run beside the tick, never in it: a frozen calendar or
   * outputs service (each call waits up to 10 s) must not hold back a talk starting elsewhere.
   */
  private async tick(): Promise<void> {
    const bound = this.deps.rooms().filter((room) => room.schedule !== null);
    const ids = new Set(bound.map((room) => room.id));
    for (const room of [...this.state.keys()])
      if (!ids.has(room)) {
        this.state.delete(room);
        await this.deps.leases.release(`schedule:${room}`);
      }
    for (const room of bound) {
      if (!(await this.deps.leases.hold(`schedule:${room.id}`))) {
        // Another replica schedules it: what was known here would be stale when it comes back.
        this.state.delete(room.id);
        continue;
      }
      await this.conduct(room).catch((error: Error) => this.problem(room.id, error.message));
    }
  }

  private async conduct(room: CaptionRoom): Promise<void> {
    let state = this.state.get(room.id);
    if (!state) {
      state = {
        talks: undefined,
        readAt: 0,
        fresh: false,
        away: false,
        reading: undefined,
        effecting: undefined,
        marked: undefined,
        sessions: new Map(),
        settled: new Set(),
        problem: undefined,
      };
      this.state.set(room.id, state);
    }
    const since = Date.now() - state.readAt;
    const polled = since >= this.deps.pollMs && state.reading === undefined;
    if (polled) this.read(room, state);
    // A read that has not answered within a poll: the calendar is away as much as one refusing.
    else if (state.reading && since >= this.deps.pollMs)
      this.away(room, state, 'calendar did not answer in time');
    const now = this.deps.clock();
    await this.runSources(room, state, now);
    if (state.talks === undefined || state.effecting) return;
    const talks = state.talks;
    state.effecting = this.effects(room, state, talks, now, polled)
      .catch((error: Error) => this.problem(room.id, error.message))
      .finally(() => {
        if (state) state.effecting = undefined;
      });
  }

  private read(room: CaptionRoom, state: RoomState): void {
    const schedule = room.schedule!;
    const now = this.deps.clock();
    state.readAt = Date.now();
    state.reading = this.deps.calendar
      .venueTalks(schedule.venue, now - BEHIND_MS, now + AHEAD_MS)
      .then((talks) => {
        state.talks = talks;
        if (!state.fresh)
          this.deps.log.info({ room: room.id, venue: schedule.venue, talks: talks.length }, 'schedule read');
        state.fresh = true;
        state.away = false;
      })
      .catch((error: Error) => {
        this.away(room, state, error.message);
        // Asked again at the next tick, not a whole poll later: the outage may be short.
        state.readAt = 0;
      })
      .finally(() => {
        state.reading = undefined;
      });
  }

  private away(room: CaptionRoom, state: RoomState, reason: string): void {
    state.fresh = false;
    if (state.away) return;
    state.away = true;
    this.deps.log.warn(
      { room: room.id, venue: room.schedule!.venue, reason, known: state.talks?.length ?? null },
      'calendar unreachable: keeping the schedule known, stopping nothing',
    );
  }

  private async effects(room: CaptionRoom, state: RoomState, talks: Talk[], now: number, polled: boolean) {
    await this.markArchive(room, state, talks, now);
    if (this.deps.writesCalendar) await this.writeFields(room, state, talks, now, polled);
    if (state.problem) {
      this.deps.log.info({ room: room.id }, 'room schedule applied again');
      state.problem = undefined;
    }
  }

  private async runSources(room: CaptionRoom, state: RoomState, now: number): Promise<void> {
    const sources = await this.deps.repo.list(room.sourceRoom);
    const want = shouldRun(
      state.talks,
      room.schedule!,
      now,
      state.fresh,
      sources.some((s) => s.running),
    );
    if (want === undefined) return;
    const changing = sources.filter((source) => source.running !== want);
    if (changing.length === 0) return;
    for (const source of changing) await this.deps.repo.setRunning(source.id, want);
    this.deps.log.info(
      { room: room.id, sources: changing.length, hold: room.schedule!.hold },
      want ? 'schedule starts the room' : 'schedule stops the room',
    );
    await this.deps.applied();
  }

  private async markArchive(room: CaptionRoom, state: RoomState, talks: Talk[], now: number): Promise<void> {
    const talk = talkAt(talks, room.schedule!, now);
    const id = talk?.id ?? null;
    if (state.marked === id) return;
    const token = room.tokens.outputWrite;
    const session = await this.deps.archive.markTalk(room.outputRoom, token, talk);
    if (talk && session) state.sessions.set(talk.id, session);
    state.marked = id;
    this.deps.log.info(
      { room: room.id, event: id },
      id === null ? 'archive between talks' : 'archive follows a talk',
    );
  }

  private async writeFields(
    room: CaptionRoom,
    state: RoomState,
    talks: Talk[],
    now: number,
    polled: boolean,
  ): Promise<void> {
    const tail = room.schedule!.tailSeconds * 1000;
    const live = room.schedule!.hold === 'off' ? null : this.deps.liveUrl(room.id);
    for (const talk of talks) {
      const session = state.sessions.get(talk.id);
      const settleAt = talk.end + tail + 2 * this.deps.pollMs;
      if (!fieldDue(talk, now, settleAt, state.settled.has(talk.id), session !== undefined)) continue;
      const settling = now >= settleAt;
      // At its end at once; then once a poll while the tail lasts (a translation track may come),
      // and once more to settle it.
      const ending = talk.captions === null || talk.captions.live !== null;
      const transcripts =
        now >= talk.end && session !== undefined && (ending || polled || settling)
          ? await this.deps.archive.transcripts(session)
          : undefined;
      const wanted = captionsFor(talk, now, room.id, live ?? '', transcripts);
      if (wanted && wanted.live === '') wanted.live = null;
      if (!sameCaptions(wanted, talk.captions)) {
        await this.deps.calendar.setCaptions(talk.id, wanted);
        talk.captions = wanted;
        this.deps.log.info(
          { room: room.id, event: talk.id, transcripts: wanted?.transcripts.length ?? 0 },
          wanted?.live ? 'talk marked live in the calendar' : 'talk transcripts linked in the calendar',
        );
      }
      if (settling) state.settled.add(talk.id);
    }
    // Talks gone from the window (a day old, or removed) need no memory.
    const listed = new Set(talks.map((talk) => talk.id));
    for (const id of state.settled) if (!listed.has(id)) state.settled.delete(id);
  }

  /** One line per problem, not per tick (the calendar or the archive refusing, say). */
  private problem(room: string, message: string): void {
    const state = this.state.get(room);
    if (state?.problem === message) return;
    if (state) state.problem = message;
    this.deps.log.warn({ room, reason: message }, 'room schedule not applied; retrying');
  }
}
