import type { Knex } from 'knex';

const TABLE = 'cal_import_subscriptions';

/** A stored subscription: a feed the calendar imports again every `every_minutes`. */
export interface SubscriptionRow {
  id: number;
  url: string;
  format: string;
  source: string;
  every_minutes: number;
  user_id: number;
  created_utc: Date;
  next_run_at: Date;
  last_run_at: Date | null;
  last_ok: boolean | null;
  last_summary: unknown;
  last_error: string | null;
}

export interface NewSubscription {
  url: string;
  format: string;
  source: string;
  everyMinutes: number;
  userId: number;
}

/** How one run went: the import's counts, or why it failed. */
export type RunResult = { ok: true; summary: unknown } | { ok: false; error: string };

const summaryText = (summary: unknown) => JSON.stringify(summary);

/**
 * Saves the subscription of `url` after an import of it at `at` succeeded: a new row, or the
 * row of that url updated (one subscription per feed, whoever subscribed it again).
 */
export async function upsertSubscription(
  knex: Knex,
  sub: NewSubscription,
  at: Date,
  summary: unknown,
): Promise<SubscriptionRow> {
  const next = new Date(at.getTime() + sub.everyMinutes * 60_000);
  const values = {
    url: sub.url,
    format: sub.format,
    source: sub.source,
    every_minutes: sub.everyMinutes,
    user_id: sub.userId,
    next_run_at: next,
    last_run_at: at,
    last_ok: true,
    last_summary: summaryText(summary),
    last_error: null,
  };
  const [row] = (await knex(TABLE)
    .insert({ ...values, created_utc: at })
    .onConflict('url')
    .merge(Object.keys(values))
    .returning('*')) as SubscriptionRow[];
  return row!;
}

export async function listSubscriptions(knex: Knex): Promise<SubscriptionRow[]> {
  return (await knex(TABLE).orderBy('id').select()) as SubscriptionRow[];
}

/** Removes one subscription; answers the removed row, or undefined when there was none. */
export async function deleteSubscription(knex: Knex, id: number): Promise<SubscriptionRow | undefined> {
  const [row] = (await knex(TABLE).where('id', id).delete().returning('*')) as SubscriptionRow[];
  return row;
}

/**
 * Claims the subscriptions due at `now` for this process: one UPDATE moves each one's next run a
 * period ahead and returns it. A replica running the same statement at the same moment waits for
 * the row lock, then re-reads the row, finds it no longer due and skips it: a due run is claimed
 * exactly once. The returned rows still carry the previous run's outcome (last_ok).
 */
export async function claimDue(knex: Knex, now: Date): Promise<SubscriptionRow[]> {
  const { rows } = await knex.raw(
    `UPDATE ${TABLE} SET next_run_at = ?::timestamptz + every_minutes * interval '1 minute'
     WHERE next_run_at <= ? RETURNING *`,
    [now, now],
  );
  return rows as SubscriptionRow[];
}

/** Records how the run of subscription `id` at `at` went (a deleted one records nothing). */
export async function recordRun(knex: Knex, id: number, at: Date, result: RunResult): Promise<void> {
  await knex(TABLE)
    .where('id', id)
    .update({
      last_run_at: at,
      last_ok: result.ok,
      last_summary: result.ok ? summaryText(result.summary) : null,
      last_error: result.ok ? null : result.error,
    });
}
