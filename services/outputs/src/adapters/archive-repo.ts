import type { TimedCaption } from '@live-captions/caption-files';
import type { Knex } from 'knex';

export interface SessionRow {
  id: string;
  startedAt: number;
  lastAt: number | null;
  endedAt: number | null;
  captions: number;
}

const sessionOf = (r: Record<string, unknown>): SessionRow => ({
  id: String(r.id),
  startedAt: Number(r.started_at),
  lastAt: r.last_at === null ? null : Number(r.last_at),
  endedAt: r.ended_at === null ? null : Number(r.ended_at),
  captions: Number(r.captions),
});

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

    async remove(room: string, id: string): Promise<boolean> {
      return (await knex('out_sessions').where({ room, id }).del()) > 0;
    },
  };
}

export type ArchiveRepo = ReturnType<typeof archiveRepo>;
