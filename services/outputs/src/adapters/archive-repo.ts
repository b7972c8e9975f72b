import { randomUUID } from 'node:crypto';
import type { TimedCaption } from '@live-captions/caption-files';
import type { Knex } from 'knex';
import {
  closingTime,
  discardable,
  type EventStep,
  endedAtOf,
  eventStep,
  type SessionEvent,
} from '../domain/sessions.js';
import { addArchiveDestination } from './destinations-repo.js';
import { lockRoomSessions } from './session-lock.js';

export interface SessionRow {
  id: string;
  room: string;
  startedAt: number;
  lastAt: number | null;
  endedAt: number | null;
  captions: number;
  /** The calendar event it is the transcript of (the scheduler's PUT); null: untagged. */
  event: SessionEvent | null;
}

export const sessionOf = (r: Record<string, unknown>): SessionRow => ({
  id: String(r.id),
  room: String(r.room),
  startedAt: Number(r.started_at),
  lastAt: r.last_at === null ? null : Number(r.last_at),
  endedAt: r.ended_at === null ? null : Number(r.ended_at),
  captions: Number(r.captions),
  event:
    r.event_id === null || r.event_id === undefined
      ? null
      : {
          id: Number(r.event_id),
          title: String(r.event_title),
          start: Number(r.event_start),
          end: Number(r.event_end),
        },
});

/** The columns of a session's event tag (null: untagged). */
const eventColumns = (event: SessionEvent | null) => ({
  event_id: event?.id ?? null,
  event_title: event?.title ?? null,
  event_start: event?.start ?? null,
  event_end: event?.end ?? null,
});

const sameEvent = (a: SessionEvent | null, b: SessionEvent | null) =>
  a === null || b === null
    ? a === b
    : a.id === b.id && a.title === b.title && a.start === b.start && a.end === b.end;

/** What an event PUT did: the step taken and the room's session after it (null: none). */
export interface EventResult {
  step: EventStep;
  session: SessionRow | null;
}

export function archiveRepo(knex: Knex) {
  return {
    async sessions(room: string): Promise<SessionRow[]> {
      const rows = await knex('out_sessions').where({ room }).orderBy('started_at').orderBy('id');
      return rows.map(sessionOf);
    },

    async session(room: string, id: string): Promise<SessionRow | undefined> {
      const [row] = await knex('out_sessions').where({ room, id });
      return row ? sessionOf(row) : undefined;
    },

    /** Captions per track of each of the sessions (gap marks not counted). */
    async tracks(sessionIds: string[]): Promise<Map<string, { track: string; captions: number }[]>> {
      const tracks = new Map<string, { track: string; captions: number }[]>();
      if (sessionIds.length === 0) return tracks;
      const rows = await knex('out_archive')
        .whereIn('session_id', sessionIds)
        .whereNotNull('caption_key')
        .groupBy('session_id', 'track')
        .select('session_id', 'track', knex.raw('count(*) as captions'));
      for (const r of rows as { session_id: string; track: string; captions: unknown }[]) {
        const list = tracks.get(r.session_id) ?? [];
        list.push({ track: r.track, captions: Number(r.captions) });
        tracks.set(r.session_id, list);
      }
      return tracks;
    },

    /**
     * A track's captions in the order they went out (a correction keeps its place), each with its
     * row's id, so that no two are ever taken for one (gap marks have no caption key).
     */
    async captions(sessionId: string, track: string): Promise<TimedCaption[]> {
      const rows = await knex('out_archive')
        .where({ session_id: sessionId, track })
        .orderBy('id')
        .select('id', 'at', 'text');
      return rows.map((r: { id: unknown; at: unknown; text: string }) => ({
        id: String(r.id),
        at: Number(r.at),
        text: r.text,
      }));
    },

    /** A session by id alone, whichever room (the public transcripts). */
    async byId(id: string): Promise<SessionRow | undefined> {
      const [row] = await knex('out_sessions').where({ id });
      return row ? sessionOf(row) : undefined;
    },

    /**
     * From now on the room's captions go to a session of `event` (null: untagged, between
     * talks): the open session stays when it already is that event's (its title and times
     * refreshed), else it is closed (deleted when `discardable`) and a new one opened, now.
     * A room without archive gets one (`eventStep` says when not).
     */
    async setEvent(
      room: string,
      event: SessionEvent | null,
      now: number,
      idleMs: number,
    ): Promise<EventResult> {
      return knex.transaction(async (trx) => {
        await lockRoomSessions(trx, room);
        const [archive] = await trx('out_destinations').where({ room, kind: 'archive' }).select('id');
        const newest = (query: Knex.QueryBuilder) =>
          query.orderBy('started_at', 'desc').orderBy('id', 'desc').first();
        const latestRow = await newest(trx('out_sessions').where({ room }));
        const unclosedRow = await newest(trx('out_sessions').where({ room }).whereNull('ended_at'));
        const latest = latestRow ? sessionOf(latestRow) : undefined;
        const unclosed = unclosedRow ? sessionOf(unclosedRow) : undefined;
        // Open: not closed, and not already reported ended (idle): its next caption would not go there.
        const open = unclosed && endedAtOf(unclosed, now, idleMs) === null ? unclosed : undefined;
        const step = eventStep({
          hasArchive: archive !== undefined,
          openEventId: open ? (open.event?.id ?? null) : undefined,
          latestEventId: latest ? (latest.event?.id ?? null) : undefined,
          requested: event?.id ?? null,
        });
        if (step.kind === 'none') return { step, session: null };
        if (step.kind === 'kept-off') return { step, session: latest ?? null };
        if (step.kind === 'same') {
          if (sameEvent(open!.event, event)) return { step, session: open! };
          // The talk was renamed or moved in the calendar: still the same talk, the same session.
          await trx('out_sessions').where({ id: open!.id }).update(eventColumns(event));
          return { step, session: { ...open!, event } };
        }
        if (step.addArchive) await addArchiveDestination(trx, room, now);
        // The unclosed session, even when idle: it gets its end (an idle one's stays what was reported).
        if (unclosed) {
          if (discardable(unclosed)) await trx('out_sessions').where({ id: unclosed.id }).del();
          else
            await trx('out_sessions')
              .where({ id: unclosed.id })
              .update({ ended_at: closingTime(unclosed, now, idleMs) });
        }
        const session: SessionRow = {
          id: randomUUID(),
          room,
          startedAt: now,
          lastAt: null,
          endedAt: null,
          captions: 0,
          event,
        };
        await trx('out_sessions').insert({
          id: session.id,
          room,
          started_at: now,
          ...eventColumns(event),
        });
        return { step, session };
      });
    },

    async remove(room: string, id: string): Promise<boolean> {
      return (await knex('out_sessions').where({ room, id }).del()) > 0;
    },
  };
}

export type ArchiveRepo = ReturnType<typeof archiveRepo>;
