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
import { captionsFor, sameCaptions, shouldRun, type Talk, talkAt } from '../domain/schedule.js';
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
  readAt: number;
  fresh: boolean;
  /** The talk the archive was last told, and each talk's archive session. */
  marked: number | null | undefined;
  sessions: Map<number, string>;
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
    await Promise.all([...this.state.keys()].map((room) => this.deps.leases.release(`schedule:${room}`)));
  }

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
    const schedule = room.schedule!;
    let state = this.state.get(room.id);
    if (!state) {
      state = {
        talks: undefined,
        readAt: 0,
        fresh: false,
        marked: undefined,
        sessions: new Map(),
        problem: undefined,
      };
      this.state.set(room.id, state);
    }
    const now = this.deps.clock();
    const polled = Date.now() - state.readAt >= this.deps.pollMs;
    if (polled) {
      state.readAt = Date.now();
      try {
        state.talks = await this.deps.calendar.venueTalks(schedule.venue, now - BEHIND_MS, now + AHEAD_MS);
        if (!state.fresh)
          this.deps.log.info(
            { room: room.id, venue: schedule.venue, talks: state.talks.length },
            'schedule read',
          );
        state.fresh = true;
      } catch (error) {
        if (state.fresh || state.talks === undefined)
          this.deps.log.warn(
            {
              room: room.id,
              venue: schedule.venue,
              reason: (error as Error).message,
              known: state.talks?.length ?? null,
            },
            'calendar unreachable: keeping the schedule known, stopping nothing',
          );
        state.fresh = false;
        // Checked again next tick, not a whole poll later: the outage may be short.
        state.readAt = 0;
      }
    }
    await this.runSources(room, state, now);
    if (state.talks === undefined) return;
    await this.markArchive(room, state, now);
    if (this.deps.writesCalendar) await this.writeFields(room, state, now, polled);
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

  private async markArchive(room: CaptionRoom, state: RoomState, now: number): Promise<void> {
    const talk = talkAt(state.talks!, room.schedule!, now);
    const id = talk?.id ?? null;
    if (state.marked === id) return;
    const token = room.tokens.outputWrite;
    const session = await this.deps.archive.markTalk(room.outputRoom, token, talk);
    if (talk) state.sessions.set(talk.id, session);
    state.marked = id;
    this.deps.log.info(
      { room: room.id, event: id },
      id === null ? 'archive between talks' : 'archive follows a talk',
    );
  }

  private async writeFields(
    room: CaptionRoom,
    state: RoomState,
    now: number,
    polled: boolean,
  ): Promise<void> {
    const tail = room.schedule!.tailSeconds * 1000;
    const live = room.schedule!.hold === 'off' ? null : this.deps.liveUrl(room.id);
    for (const talk of state.talks!) {
      // Past talks were written when they ended; until the tail is over, new tracks may still come.
      if (talk.start > now || now >= talk.end + tail + 2 * this.deps.pollMs) continue;
      const session = state.sessions.get(talk.id);
      // At its end at once; then once a poll while the tail lasts (a translation track may come).
      const ending = talk.captions === null || talk.captions.live !== null;
      const transcripts =
        now >= talk.end && session !== undefined && (ending || polled)
          ? await this.deps.archive.transcripts(session)
          : undefined;
      const wanted = captionsFor(talk, now, room.id, live ?? '', transcripts);
      if (wanted && wanted.live === '') wanted.live = null;
      if (sameCaptions(wanted, talk.captions)) continue;
      await this.deps.calendar.setCaptions(talk.id, wanted);
      talk.captions = wanted;
      this.deps.log.info(
        { room: room.id, event: talk.id, transcripts: wanted?.transcripts.length ?? 0 },
        wanted?.live ? 'talk marked live in the calendar' : 'talk transcripts linked in the calendar',
      );
    }
  }

  /** One line per problem, not per tick (the calendar or the archive refusing, say). */
  private problem(room: string, message: string): void {
    const state = this.state.get(room);
    if (state?.problem === message) return;
    if (state) state.problem = message;
    this.deps.log.warn({ room, reason: message }, 'room schedule not applied; retrying');
  }
}
