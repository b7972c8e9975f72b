/**
 * A destination's deliveries: the outbox in order, each POST's seq and body fixed (persisted)
 * before its first attempt, so that a retry, a restart or another replica sends the same seq
 * with the same bytes; marked delivered only after the platform's 2xx.
 */
import type { Knex } from 'knex';
import type { PendingCaption } from '../domain/platform-bodies.js';

export interface Post {
  seq: number;
  body: string;
  captions: number;
}

export function outboxRepo(knex: Knex) {
  return {
    /** The oldest POST whose body is fixed but not yet delivered. */
    async pending(destinationId: string): Promise<Post | undefined> {
      const [row] = await knex('out_posts').where({ destination_id: destinationId }).orderBy('seq').limit(1);
      return row
        ? { seq: Number(row.seq), body: String(row.body), captions: Number(row.captions) }
        : undefined;
    },

    /** Whether anything waits to be sent (a fixed POST, or captions not yet in one). */
    async waiting(destinationId: string): Promise<boolean> {
      const [row] = await knex('out_outbox').where({ destination_id: destinationId }).limit(1).select('id');
      return row !== undefined;
    },

    /**
     * Fixes the next POST from up to `max` waiting captions: its seq (last + 1) and its body.
     * Waiting captions taken before `staleBefore` (ms, the relay's time) are too old for a live
     * audience: they leave the outbox unsent and count as `skipped` (the archive has them). A POST
     * already fixed is never touched: its seq and body may have reached the platform.
     */
    async fix(
      destinationId: string,
      max: number,
      bodyOf: (captions: PendingCaption[]) => string,
      staleBefore: number,
    ): Promise<{ post?: Post; skipped: number }> {
      return knex.transaction(async (trx) => {
        const [destination] = await trx('out_destinations')
          .where({ id: destinationId })
          .forUpdate()
          .select('last_seq');
        if (!destination) return { skipped: 0 };
        const skipped = await trx('out_outbox')
          .where({ destination_id: destinationId })
          .whereNull('post_seq')
          .where('at', '<', staleBefore)
          .del();
        if (skipped > 0)
          await trx('out_destinations')
            .where({ id: destinationId })
            .update({ skipped: trx.raw('skipped + ?', [skipped]) });
        const rows = await trx('out_outbox')
          .where({ destination_id: destinationId })
          .whereNull('post_seq')
          .orderBy('id')
          .limit(max)
          .select('id', 'at', 'text');
        if (rows.length === 0) return { skipped };
        const seq = Number(destination.last_seq) + 1;
        const body = bodyOf(
          rows.map((r: { at: unknown; text: string }) => ({ at: Number(r.at), text: r.text })),
        );
        await trx('out_posts').insert({ destination_id: destinationId, seq, body, captions: rows.length });
        const ids = rows.map((r: { id: unknown }) => Number(r.id));
        await trx('out_outbox').whereIn('id', ids).update({ post_seq: seq });
        await trx('out_destinations').where({ id: destinationId }).update({ last_seq: seq });
        return { post: { seq, body, captions: rows.length }, skipped };
      });
    },

    /** The platform accepted `seq`: its captions are delivered. */
    async delivered(destinationId: string, seq: number): Promise<number> {
      return knex.transaction(async (trx) => {
        const [post] = (await trx('out_posts')
          .where({ destination_id: destinationId, seq })
          .del(['captions'])) as { captions: unknown }[];
        if (!post) return 0;
        await trx('out_outbox').where({ destination_id: destinationId, post_seq: seq }).del();
        const captions = Number(post.captions);
        await trx('out_destinations')
          .where({ id: destinationId })
          .update({
            sent: trx.raw('sent + ?', [captions]),
            failing: false,
            last_error: null,
            last_error_kind: null,
            last_error_at: null,
          });
        return captions;
      });
    },

    /**
     * Zoom's last accepted seq after a restart: POSTs it already has are delivered, and the next
     * seq follows the larger of ours and Zoom's. Returns how many captions that marked delivered.
     */
    async resync(destinationId: string, accepted: number): Promise<number> {
      const done = await knex('out_posts')
        .where({ destination_id: destinationId })
        .where('seq', '<=', accepted)
        .orderBy('seq')
        .select('seq');
      let captions = 0;
      for (const { seq } of done) captions += await this.delivered(destinationId, Number(seq));
      await knex('out_destinations')
        .where({ id: destinationId })
        .update({ last_seq: knex.raw('greatest(last_seq, ?)', [accepted]) });
      return captions;
    },
  };
}

export type OutboxRepo = ReturnType<typeof outboxRepo>;
