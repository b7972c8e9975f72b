/**
 * A caption read from the relay, accepted once: in one transaction the room's cursor advances and
 * every destination of the caption's track gets it (an outbox row, or the archive row), and for an
 * original (or a clear of it) every translation target of the room gets a queue row. A caption at
 * or before the stored cursor (a replay after a reconnect, another replica's read) changes
 * nothing, so a caption is accepted once whoever reads it.
 */
import { randomUUID } from 'node:crypto';
import type { RelayCursor } from '@live-captions/protocol';
import type { Knex } from 'knex';
import { type DeliveryRun, gapMessage, missedBefore } from '../domain/gaps.js';
import { continuesSession, discardable, GAP_MARK } from '../domain/sessions.js';
import { ORIGINAL } from '../domain/tracks.js';
import { sessionOf } from './archive-repo.js';
import { lockRoomSessions } from './session-lock.js';

export interface AcceptedCaption {
  cursor: RelayCursor;
  /** The caption's id as published (a correction republishes the same id). */
  id: string | number;
  text: string;
  at: number;
  /** `original` or a translation's language. */
  track: string;
  /** A clear (`c`): only the translation targets take it (each publishes a clear of its track). */
  clear: boolean;
  /** Its publisher's run of delivery sequences as the reader saw it (a relay that sends them). */
  delivery?: DeliveryRun;
}

/** What accepting a caption did, for the reader to wake who has work. */
export interface Accepted {
  archived: boolean;
  /** Platform destinations that got an outbox row. */
  sent: boolean;
  /** Translation targets that got a queue row. */
  queued: boolean;
  /** Only when its publisher's sequences told of lost captions before it: how many (a gap marked). */
  missed?: number;
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

  /**
   * The room's open archive session for a caption at `at` (a new, untagged one after an idle
   * time: continuesSession). The caller holds the room's session lock.
   */
  async function sessionFor(trx: Knex.Transaction, room: string, at: number): Promise<string> {
    const [row] = await trx('out_sessions')
      .where({ room })
      .whereNull('ended_at')
      .orderBy('started_at', 'desc')
      .limit(1);
    const open = row && sessionOf(row);
    const session = open && {
      id: open.id,
      lastAt: open.lastAt ?? open.startedAt,
      ended: false,
      eventEnd: open.event?.end ?? null,
    };
    if (session && continuesSession(session, at, options.sessionIdleMs)) return session.id;
    if (open && discardable(open)) await trx('out_sessions').where({ id: open.id }).del();
    else if (session)
      await trx('out_sessions').where({ id: session.id }).update({ ended_at: session.lastAt });
    const id = randomUUID();
    await trx('out_sessions').insert({ id, room, started_at: at });
    return id;
  }

  /**
   * Stores a caption of `track` in the room's open session: a correction (same id, same track,
   * within the correction window) replaces the text in place. A translation takes its original's
   * time when the session holds the original, so that each language's cues line up with the
   * original's, also when the translation came late (an engine outage).
   */
  async function archive(
    trx: Knex.Transaction,
    room: string,
    caption: { track: string; key: string | null; text: string; at: number },
  ) {
    const { track, key, text } = caption;
    let at = caption.at;
    const session = await sessionFor(trx, room, at);
    if (key !== null) {
      const [earlier] = await trx('out_archive')
        .where({ session_id: session, track, caption_key: key })
        .where('at', '>=', at - CORRECTION_WINDOW_MS)
        .orderBy('id', 'desc')
        .limit(1);
      if (earlier) {
        await trx('out_archive').where({ id: earlier.id }).update({ text });
        await trx('out_sessions').where({ id: session }).update({ last_at: caption.at });
        return;
      }
      if (track !== ORIGINAL) {
        const [original] = await trx('out_archive')
          .where({ session_id: session, track: ORIGINAL, caption_key: key })
          .orderBy('id', 'desc')
          .limit(1)
          .select('at');
        if (original) at = Number(original.at);
      }
    }
    await trx('out_archive').insert({ session_id: session, track, caption_key: key, at, text });
    // `captions` counts the original track's captions (the session's figure the API has always shown).
    const counted = key !== null && track === ORIGINAL ? 1 : 0;
    await trx('out_sessions')
      .where({ id: session })
      .update({ last_at: caption.at, captions: trx.raw('captions + ?', [counted]) });
  }

  /**
   * The publisher's last accepted sequence against the caption's run (`missedBefore`), and the
   * caption's sequence stored as the new last one. The room's cursor row, locked by `advance`,
   * keeps two replicas from doing this at once.
   */
  async function publisher(
    trx: Knex.Transaction,
    room: string,
    run: DeliveryRun,
    at: number,
  ): Promise<'again' | number> {
    const [row] = await trx('out_publishers').where({ room, client: run.client }).select('sequence');
    const missed = missedBefore(row ? Number(row.sequence) : undefined, run);
    if (missed === 'again') return missed;
    await trx('out_publishers')
      .insert({ room, client: run.client, sequence: run.sequence, at })
      .onConflict(['room', 'client'])
      .merge();
    return missed;
  }

  /**
   * Captions were missed: every destination of the room shows `message` as its `lastError`, and
   * the archive marks the gap in `track` (every track of the open session for an original: its
   * translations were never made either), just after the session's last caption (the captions
   * that follow keep their own, later, times); at `now` when no session is open.
   */
  async function markGap(
    trx: Knex.Transaction,
    room: string,
    now: number,
    message: string,
    track = ORIGINAL,
  ) {
    await trx('out_destinations')
      .where({ room })
      .update({ last_error: message, last_error_at: now, last_error_kind: 'gap' });
    const [archived] = await trx('out_destinations').where({ room, kind: 'archive' }).select('id');
    if (!archived) return;
    const [open] = await trx('out_sessions')
      .where({ room })
      .whereNull('ended_at')
      .orderBy('started_at', 'desc')
      .limit(1)
      .select('started_at', 'last_at');
    const at = open ? Number(open.last_at ?? open.started_at) + 1 : now;
    const session = await sessionFor(trx, room, at);
    const rows = await trx('out_archive').where({ session_id: session }).distinct('track');
    const tracks =
      track === ORIGINAL ? new Set([ORIGINAL, ...rows.map((r: { track: string }) => r.track)]) : [track];
    for (const each of tracks) await archive(trx, room, { track: each, key: null, text: GAP_MARK, at });
  }

  return {
    async cursor(room: string): Promise<RelayCursor | undefined> {
      const [row] = await knex('out_cursors').where({ room }).select('epoch', 'sequence');
      return row ? { epoch: String(row.epoch), sequence: Number(row.sequence) } : undefined;
    },

    /** Undefined for a caption already accepted; else what it was given to. */
    async accept(room: string, caption: AcceptedCaption): Promise<Accepted | undefined> {
      return knex.transaction(async (trx) => {
        if (!(await advance(trx, room, caption.cursor))) return undefined;
        // Before any destination row is written: the order every session writer takes them in.
        await lockRoomSessions(trx, room);
        // The archive delivers again: a gap's `lastError` there is no longer news.
        if (!caption.clear)
          await trx('out_destinations')
            .where({ room, kind: 'archive', last_error_kind: 'gap' })
            .update({ last_error: null, last_error_at: null, last_error_kind: null });
        const missed = caption.delivery ? await publisher(trx, room, caption.delivery, caption.at) : 0;
        if (missed === 'again') return undefined;
        if (missed > 0) {
          const message = gapMessage({ kind: 'relay-restarted', missed, at: caption.at });
          await markGap(trx, room, Date.now(), message, caption.track);
        }
        const lost = missed > 0 ? { missed } : {};
        let queued = false;
        if (caption.track === ORIGINAL) {
          const targets = await trx('out_translations').where({ room }).select('id');
          if (targets.length > 0) {
            await trx('out_translation_queue').insert(
              targets.map((t: { id: string }) => ({
                translation_id: t.id,
                caption_id: JSON.stringify(caption.id),
                text: caption.clear ? '' : caption.text,
                clear: caption.clear,
                at: caption.at,
              })),
            );
            queued = true;
          }
        }
        if (caption.clear) return { archived: false, sent: false, queued, ...lost };
        const destinations = await trx('out_destinations').where({ room }).select('id', 'kind', 'track');
        const senders = destinations.filter(
          (d: { kind: string; track: string }) => d.kind !== 'archive' && d.track === caption.track,
        );
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
        if (archived)
          await archive(trx, room, {
            track: caption.track,
            key: String(caption.id),
            text: caption.text,
            at: caption.at,
          });
        return { archived, sent: senders.length > 0, queued, ...lost };
      });
    },

    /** Only the cursor moves (a caption that goes nowhere: interim, clear). */
    async skip(room: string, cursor: RelayCursor): Promise<void> {
      await knex.transaction((trx) => advance(trx, room, cursor).then(() => undefined));
    },

    /**
     * PostgreSQL refused the caption's rows (a data error, not an outage): only the cursor moves,
     * and every destination of the room shows why (`lastError`, without turning it `failing`).
     */
    async refused(room: string, cursor: RelayCursor, message: string, at: number): Promise<void> {
      await knex.transaction(async (trx) => {
        await advance(trx, room, cursor);
        await trx('out_destinations')
          .where({ room })
          .update({ last_error: message, last_error_at: at, last_error_kind: null });
      });
    },

    /**
     * A gap the relay reported: the cursor moves to `cursor`. The relay's history no longer held
     * captions after ours (`message` given): they are marked (`markGap`), and what the publishers
     * sent before them is no measure any more. A relay restart (no `message`) loses nothing by
     * itself: the publishers' next captions tell whether something went (`accept`).
     */
    async gap(room: string, cursor: RelayCursor, now: number, message?: string): Promise<void> {
      await knex.transaction(async (trx) => {
        await trx('out_cursors')
          .insert({ room, ...cursor })
          .onConflict('room')
          .merge();
        if (message === undefined) return;
        await lockRoomSessions(trx, room);
        await trx('out_publishers').where({ room }).del();
        await markGap(trx, room, now, message);
      });
    },
  };
}

export type IngestRepo = ReturnType<typeof ingestRepo>;
