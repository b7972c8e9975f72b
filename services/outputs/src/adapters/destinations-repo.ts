import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { type DestinationKind, targetKey } from '../domain/destination-url.js';
import { ORIGINAL } from '../domain/tracks.js';
import { lockRoomSessions } from './session-lock.js';

/** A destination as stored (with its secret URL: stays server-side). */
export interface DestinationRow {
  id: string;
  room: string;
  kind: DestinationKind;
  url: string | null;
  lang: string | null;
  /** The track a platform destination gets (`original` or a language); `original` for the archive. */
  track: string;
  createdAt: number;
  lastSeq: number;
  sent: number;
  /** Captions not sent because they were too old for a live audience (archived only). */
  skipped: number;
  clockOffsetMs: number;
  lastErrorAt: number | null;
  lastError: string | null;
  failing: boolean;
  /** Outbox rows not yet delivered. */
  behind: number;
}

const COLUMNS = `d.id, d.room, d.kind, d.url, d.lang, d.track, d.created_at, d.last_seq, d.sent, d.skipped, d.clock_offset_ms,
  d.last_error_at, d.last_error, d.failing,
  (SELECT count(*) FROM out_outbox o WHERE o.destination_id = d.id) AS behind`;

const rowOf = (r: Record<string, unknown>): DestinationRow => ({
  id: String(r.id),
  room: String(r.room),
  kind: r.kind as DestinationKind,
  url: (r.url as string | null) ?? null,
  lang: (r.lang as string | null) ?? null,
  track: String(r.track),
  createdAt: Number(r.created_at),
  lastSeq: Number(r.last_seq),
  sent: Number(r.sent),
  skipped: Number(r.skipped),
  clockOffsetMs: Number(r.clock_offset_ms),
  lastErrorAt: r.last_error_at === null ? null : Number(r.last_error_at),
  lastError: (r.last_error as string | null) ?? null,
  failing: Boolean(r.failing),
  behind: Number(r.behind),
});

export class DuplicateDestination extends Error {}

export function destinationsRepo(knex: Knex) {
  return {
    async list(room?: string): Promise<DestinationRow[]> {
      const where = room === undefined ? '' : 'WHERE d.room = ?';
      const { rows } = await knex.raw(
        `SELECT ${COLUMNS} FROM out_destinations d ${where} ORDER BY d.created_at, d.id`,
        room === undefined ? [] : [room],
      );
      return (rows as Record<string, unknown>[]).map(rowOf);
    },

    async get(id: string): Promise<DestinationRow | undefined> {
      const { rows } = await knex.raw(`SELECT ${COLUMNS} FROM out_destinations d WHERE d.id = ?`, [id]);
      const row = (rows as Record<string, unknown>[])[0];
      return row ? rowOf(row) : undefined;
    },

    /** Rooms with at least one destination: the rooms this service reads. */
    async rooms(): Promise<string[]> {
      const rows = await knex('out_destinations').distinct('room').orderBy('room');
      return rows.map((r: { room: string }) => r.room);
    },

    /**
     * Adds a destination; throws DuplicateDestination when the room already has that URL (compared
     * by `targetKey`), or an archive. Adding an archive ends the room's open session: the next caption starts a new one.
     */
    async add(
      room: string,
      kind: DestinationKind,
      url: string | null,
      lang: string | null,
      track: string = ORIGINAL,
    ): Promise<string> {
      const id = randomUUID();
      const now = Date.now();
      try {
        await knex.transaction(async (trx) => {
          // First, as every transaction that takes it and writes destinations: no lock-order deadlock.
          if (kind === 'archive') await lockRoomSessions(trx, room);
          await trx('out_destinations').insert({
            id,
            room,
            kind,
            url,
            lang,
            track,
            target_key: url === null ? 'archive' : targetKey(url),
            created_at: now,
          });
          if (kind === 'archive') await endOpenSessions(trx, room, now);
        });
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw new DuplicateDestination();
        throw error;
      }
      return id;
    },

    /** Removes it with its undelivered outbox; an archive's sessions stay (ended). */
    async remove(room: string, id: string): Promise<boolean> {
      return knex.transaction(async (trx) => {
        await lockRoomSessions(trx, room);
        const [row] = (await trx('out_destinations').where({ id, room }).del(['kind'])) as { kind: string }[];
        if (row?.kind === 'archive') await endOpenSessions(trx, room, Date.now());
        return row !== undefined;
      });
    },

    async recordError(id: string, message: string, failing: boolean): Promise<void> {
      await knex('out_destinations')
        .where({ id })
        .update({ last_error: message, last_error_at: Date.now(), last_error_kind: null, failing });
    },

    async clearError(id: string): Promise<void> {
      await knex('out_destinations').where({ id }).update({ failing: false });
    },

    async setClockOffset(id: string, offsetMs: number): Promise<void> {
      await knex('out_destinations').where({ id }).update({ clock_offset_ms: offsetMs });
    },
  };
}

export type DestinationsRepo = ReturnType<typeof destinationsRepo>;

/**
 * The room's archive destination, added in `trx` unless it has one (the scheduler's event PUT:
 * a room it conducts keeps a transcript per talk). The caller holds the room's session lock.
 */
export async function addArchiveDestination(trx: Knex.Transaction, room: string, now: number): Promise<void> {
  await trx('out_destinations')
    .insert({
      id: randomUUID(),
      room,
      kind: 'archive',
      url: null,
      lang: null,
      track: ORIGINAL,
      target_key: 'archive',
      created_at: now,
    })
    .onConflict(['room', 'target_key'])
    .ignore();
}

async function endOpenSessions(trx: Knex.Transaction, room: string, now: number): Promise<void> {
  await lockRoomSessions(trx, room);
  await trx('out_sessions')
    .where({ room })
    .whereNull('ended_at')
    .update({ ended_at: trx.raw('coalesce(last_at, ?)', [now]) });
}
