/**
 * A caption read from the relay, accepted once: in one transaction the room's cursor advances and
 * every destination of the room gets the caption (an outbox row, or the archive row). A caption
 * at or before the stored cursor (a replay after a reconnect, another replica's read) changes
 * nothing, so a caption is accepted once whoever reads it.
 */
import { randomUUID } from 'node:crypto';
import type { RelayCursor } from '@live-captions/protocol';
import type { Knex } from 'knex';
import { continuesSession, GAP_MARK } from '../domain/sessions.js';

export interface AcceptedCaption {
  cursor: RelayCursor;
  /** The caption's id: a correction republishes the same id. */
  key: string;
  text: string;
  at: number;
}

/** How long after a caption a correction of it still replaces its text in the archive. */
const CORRECTION_WINDOW_MS = 10 * 60_000;

export function ingestRepo(knex: Knex, options: { sessionIdleMs: number }) {
  /**
   * True when `cursor` is past the stored one (and stores it); false for a replayed position. One
   * statement: of two transactions accepting the same caption (a replica that has not noticed
   * yet that it lost the room), the second waits on the row and then finds it already there.
   */
  async function advance(trx: Knex.Transaction, room: string, cursor: RelayCursor): Promise<boolean> {
    const { rows } = await trx.raw(
      `INSERT INTO out_cursors (room, epoch, sequence) VALUES (?, ?, ?)
       ON CONFLICT (room) DO UPDATE SET epoch = excluded.epoch, sequence = excluded.sequence
       WHERE out_cursors.epoch <> excluded.epoch OR out_cursors.sequence < excluded.sequence
       RETURNING room`,
      [room, cursor.epoch, cursor.sequence],
    );
    return (rows as unknown[]).length === 1;
  }

  /** The room's open archive session for a caption at `at` (a new one after an idle time). */
  async function sessionFor(trx: Knex.Transaction, room: string, at: number): Promise<string> {
    const [open] = await trx('out_sessions')
      .where({ room })
      .whereNull('ended_at')
      .orderBy('started_at', 'desc')
      .limit(1);
    const session = open && {
      id: String(open.id),
      lastAt: Number(open.last_at ?? open.started_at),
      ended: false,
    };
    if (session && continuesSession(session, at, options.sessionIdleMs)) return session.id;
    if (session) await trx('out_sessions').where({ id: session.id }).update({ ended_at: session.lastAt });
    const id = randomUUID();
    await trx('out_sessions').insert({ id, room, started_at: at });
    return id;
  }

  async function archive(trx: Knex.Transaction, room: string, key: string | null, text: string, at: number) {
    const session = await sessionFor(trx, room, at);
    if (key !== null) {
      const [earlier] = await trx('out_archive')
        .where({ session_id: session, caption_key: key })
        .where('at', '>=', at - CORRECTION_WINDOW_MS)
        .orderBy('id', 'desc')
        .limit(1);
      if (earlier) {
        await trx('out_archive').where({ id: earlier.id }).update({ text });
        await trx('out_sessions').where({ id: session }).update({ last_at: at });
        return;
      }
    }
    await trx('out_archive').insert({ session_id: session, caption_key: key, at, text });
    await trx('out_sessions')
      .where({ id: session })
      .update({ last_at: at, captions: trx.raw('captions + ?', [key === null ? 0 : 1]) });
  }

  return {
    async cursor(room: string): Promise<RelayCursor | undefined> {
      const [row] = await knex('out_cursors').where({ room }).select('epoch', 'sequence');
      return row ? { epoch: String(row.epoch), sequence: Number(row.sequence) } : undefined;
    },

    /** Undefined for a caption already accepted; else whether the archive stored it. */
    async accept(room: string, caption: AcceptedCaption): Promise<{ archived: boolean } | undefined> {
      return knex.transaction(async (trx) => {
        if (!(await advance(trx, room, caption.cursor))) return undefined;
        const destinations = await trx('out_destinations').where({ room }).select('id', 'kind');
        const senders = destinations.filter((d: { kind: string }) => d.kind !== 'archive');
        if (senders.length > 0) {
          await trx('out_outbox').insert(
            senders.map((d: { id: string }) => ({
              destination_id: d.id,
              at: caption.at,
              text: caption.text,
            })),
          );
        }
        const archived = destinations.some((d: { kind: string }) => d.kind === 'archive');
        if (archived) await archive(trx, room, caption.key, caption.text, caption.at);
        return { archived };
      });
    },

    /** Only the cursor moves (a caption that goes nowhere: interim, clear). */
    async skip(room: string, cursor: RelayCursor): Promise<void> {
      await knex.transaction((trx) => advance(trx, room, cursor).then(() => undefined));
    },

    /** Captions were missed: the cursor moves to `next - 1` and the archive marks the gap. */
    async gap(room: string, cursor: RelayCursor, at: number): Promise<void> {
      await knex.transaction(async (trx) => {
        await trx('out_cursors')
          .insert({ room, ...cursor })
          .onConflict('room')
          .merge();
        const [archived] = await trx('out_destinations').where({ room, kind: 'archive' }).select('id');
        if (archived) await archive(trx, room, null, GAP_MARK, at);
      });
    },
  };
}

export type IngestRepo = ReturnType<typeof ingestRepo>;
