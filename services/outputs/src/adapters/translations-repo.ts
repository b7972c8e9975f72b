/**
 * A room's translation targets and their work: the queue of original captions (written by the
 * reader's transaction), the open sentence (the engine package's TrackState, JSON), and the frames
 * each step publishes, stored with their relay delivery sequence before the first attempt so that
 * a retry, a restart or another replica publishes the same frames with the same identity; a frame
 * is deleted once the relay acked it, and a queue row once its last frame was.
 */
import { randomUUID } from 'node:crypto';
import type { TranslationEngineKind } from '@live-captions/protocol';
import type { Knex } from 'knex';

/** A target as stored (with its engine key: stays server-side). */
export interface TranslationRow {
  id: string;
  room: string;
  target: string;
  source: string;
  engine: TranslationEngineKind;
  /** The engine address as given; null: the engine's default. */
  url: string | null;
  key: string | null;
  createdAt: number;
  deliveryClient: string;
  sent: number;
  skipped: number;
  lastErrorAt: number | null;
  lastError: string | null;
  failing: boolean;
  /** Original captions accepted but not yet translated and published. */
  behind: number;
}

export interface NewTranslationRow {
  target: string;
  source: string;
  engine: TranslationEngineKind;
  url: string | null;
  key: string | null;
}

/** A frame fixed for publishing: its relay delivery sequence and the caption fields (JSON). */
export interface StoredFrame {
  sequence: number;
  queueId: number;
  frame: string;
  /** The caption's own first translation (its latency is measured). */
  own: boolean;
  /** When the original reached this service (epoch ms). */
  at: number;
}

/** The next original (or clear) a target translates, with what the step needs. */
export interface QueuedCaption {
  queueId: number;
  /** The original's id as published (a number stays a number). */
  captionId: string | number;
  text: string;
  clear: boolean;
  at: number;
  /** The stored TrackState (JSON text) and the step counter it belongs to. */
  trackState: string;
  steps: number;
}

/** What one step stores: the next state and the frames to publish (none: skipped). */
export interface FixedStep {
  queueId: number;
  /** The `steps` counter the state was read with: a step from an older state is not stored. */
  steps: number;
  trackState: string;
  frames: { frame: string; own: boolean }[];
  /** The caption was skipped (the engine refused its text for good): counted, with the error. */
  skipped?: string;
}

const COLUMNS = `t.id, t.room, t.target, t.source, t.engine, t.url, t.key, t.created_at, t.delivery_client,
  t.sent, t.skipped, t.last_error_at, t.last_error, t.failing,
  (SELECT count(*) FROM out_translation_queue q WHERE q.translation_id = t.id) AS behind`;

const rowOf = (r: Record<string, unknown>): TranslationRow => ({
  id: String(r.id),
  room: String(r.room),
  target: String(r.target),
  source: String(r.source),
  engine: r.engine as TranslationEngineKind,
  url: (r.url as string | null) ?? null,
  key: (r.key as string | null) ?? null,
  createdAt: Number(r.created_at),
  deliveryClient: String(r.delivery_client),
  sent: Number(r.sent),
  skipped: Number(r.skipped),
  lastErrorAt: r.last_error_at === null ? null : Number(r.last_error_at),
  lastError: (r.last_error as string | null) ?? null,
  failing: Boolean(r.failing),
  behind: Number(r.behind),
});

export class DuplicateTranslation extends Error {}

export function translationsRepo(knex: Knex) {
  return {
    async list(room?: string): Promise<TranslationRow[]> {
      const where = room === undefined ? '' : 'WHERE t.room = ?';
      const { rows } = await knex.raw(
        `SELECT ${COLUMNS} FROM out_translations t ${where} ORDER BY t.created_at, t.id`,
        room === undefined ? [] : [room],
      );
      return (rows as Record<string, unknown>[]).map(rowOf);
    },

    async get(id: string): Promise<TranslationRow | undefined> {
      const { rows } = await knex.raw(`SELECT ${COLUMNS} FROM out_translations t WHERE t.id = ?`, [id]);
      const row = (rows as Record<string, unknown>[])[0];
      return row ? rowOf(row) : undefined;
    },

    /**
     * Adds a target with an empty open sentence (`initialState`); throws DuplicateTranslation
     * when the room already translates into it.
     */
    async add(room: string, target: NewTranslationRow, initialState: string): Promise<string> {
      const id = randomUUID();
      try {
        await knex('out_translations').insert({
          id,
          room,
          target: target.target,
          target_key: target.target.toLowerCase(),
          source: target.source,
          engine: target.engine,
          url: target.url,
          key: target.key,
          created_at: Date.now(),
          // The relay's delivery client: [A-Za-z0-9_-]{16,128}, one per target, for good.
          delivery_client: `tr-${id.replaceAll('-', '')}`,
          track_state: initialState,
        });
      } catch (error) {
        if ((error as { code?: string }).code === '23505') throw new DuplicateTranslation();
        throw error;
      }
      return id;
    },

    /** Removes it with its queue and unpublished frames. */
    async remove(room: string, id: string): Promise<boolean> {
      return (await knex('out_translations').where({ id, room }).del()) > 0;
    },

    async recordError(id: string, message: string, failing: boolean): Promise<void> {
      await knex('out_translations')
        .where({ id })
        .update({ last_error: message, last_error_at: Date.now(), failing });
    },

    async clearFailing(id: string): Promise<void> {
      await knex('out_translations').where({ id }).update({ failing: false });
    },

    /** The frames fixed and not yet acked, oldest first. */
    async pendingFrames(id: string, limit = 20): Promise<StoredFrame[]> {
      const rows = await knex('out_translation_frames')
        .where({ translation_id: id })
        .orderBy('sequence')
        .limit(limit);
      return rows.map((r: Record<string, unknown>) => ({
        sequence: Number(r.sequence),
        queueId: Number(r.queue_id),
        frame: String(r.frame),
        own: Boolean(r.own),
        at: Number(r.at),
      }));
    },

    /**
     * The relay acked the frame `sequence`: it is done, and its caption with it once none of its
     * frames is left. False when it was done already (another replica's ack).
     */
    async published(id: string, sequence: number): Promise<boolean> {
      return knex.transaction(async (trx) => {
        const [frame] = (await trx('out_translation_frames')
          .where({ translation_id: id, sequence })
          .del(['queue_id'])) as { queue_id: unknown }[];
        if (!frame) return false;
        const [left] = await trx('out_translation_frames')
          .where({ translation_id: id, queue_id: frame.queue_id })
          .limit(1)
          .select('sequence');
        if (!left) await trx('out_translation_queue').where({ id: frame.queue_id }).del();
        await trx('out_translations')
          .where({ id })
          .update({ sent: trx.raw('sent + 1'), failing: false });
        return true;
      });
    },

    /** The oldest caption not yet translated, with the state to translate it from. */
    async next(id: string): Promise<QueuedCaption | undefined> {
      const [target] = await knex('out_translations').where({ id }).select('track_state', 'steps');
      if (!target) return undefined;
      const [row] = await knex('out_translation_queue')
        .where({ translation_id: id, fixed: false })
        .orderBy('id')
        .limit(1);
      if (!row) return undefined;
      return {
        queueId: Number(row.id),
        captionId: JSON.parse(String(row.caption_id)) as string | number,
        text: String(row.text),
        clear: Boolean(row.clear),
        at: Number(row.at),
        trackState: String(target.track_state),
        steps: Number(target.steps),
      };
    },

    /**
     * Stores a step: its frames with the next delivery sequences, the next state, and the caption
     * as translated (deleted at once when it has no frame). False, storing nothing, when the
     * state moved meanwhile (another replica stored this step) or the caption is gone.
     */
    async fix(id: string, step: FixedStep): Promise<boolean> {
      return knex.transaction(async (trx) => {
        const [target] = await trx('out_translations')
          .where({ id })
          .forUpdate()
          .select('steps', 'last_delivery');
        if (!target || Number(target.steps) !== step.steps) return false;
        const [queued] = await trx('out_translation_queue')
          .where({ id: step.queueId, translation_id: id, fixed: false })
          .select('at');
        if (!queued) return false;
        let sequence = Number(target.last_delivery);
        if (step.frames.length > 0) {
          await trx('out_translation_frames').insert(
            step.frames.map((frame) => ({
              translation_id: id,
              sequence: ++sequence,
              queue_id: step.queueId,
              frame: frame.frame,
              own: frame.own,
              at: queued.at,
            })),
          );
          await trx('out_translation_queue').where({ id: step.queueId }).update({ fixed: true });
        } else await trx('out_translation_queue').where({ id: step.queueId }).del();
        await trx('out_translations')
          .where({ id })
          .update({
            track_state: step.trackState,
            steps: step.steps + 1,
            last_delivery: sequence,
            ...(step.skipped === undefined
              ? {}
              : { skipped: trx.raw('skipped + 1'), last_error: step.skipped, last_error_at: Date.now() }),
          });
        return true;
      });
    },
  };
}

export type TranslationsRepo = ReturnType<typeof translationsRepo>;
