import type { Logger } from '@live-captions/runtime';
import {
  claimDue,
  deleteSubscription,
  listSubscriptions,
  type NewSubscription,
  recordRun,
  type SubscriptionRow,
  upsertSubscription,
} from '../adapters/subscriptions-repo.js';
import { forbidden, isEditor, type User } from '../domain/auth.js';
import { ApiError } from '../domain/errors.js';
import type { ImportFormat } from '../domain/import/model.js';
import { type ImportContext, importService } from './import.js';

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

/** A subscription as the API answers it. */
export function subscriptionJson(row: SubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    format: row.format,
    source: row.source,
    every: row.every_minutes,
    user_id: row.user_id,
    created: iso(row.created_utc),
    next_run: iso(row.next_run_at),
    last_run:
      row.last_run_at === null
        ? null
        : {
            at: iso(row.last_run_at),
            ok: row.last_ok,
            summary: row.last_ok ? parsed(row.last_summary) : null,
            error: row.last_error,
          },
  };
}

const onlyEditors = (user: User | undefined) => {
  if (!user || !isEditor(user)) {
    throw forbidden(user, 'Sorry, only editors may manage schedule subscriptions.');
  }
};

/** Listing, saving and removing subscriptions (editors only, as imports are). */
export function subscriptionService(ctx: ImportContext) {
  return {
    /** After a successful import of `sub.url`: remember it, or update the one of that url. */
    async save(sub: NewSubscription, summary: unknown) {
      return subscriptionJson(await upsertSubscription(ctx.knex, sub, ctx.now(), summary));
    },
    async list(user: User | undefined) {
      onlyEditors(user);
      return (await listSubscriptions(ctx.knex)).map(subscriptionJson);
    },
    async remove(user: User | undefined, id: number) {
      onlyEditors(user);
      const row = await deleteSubscription(ctx.knex, id);
      if (!row) throw new ApiError(404, 'rest_import_subscription_invalid_id', 'Invalid subscription ID.');
      return subscriptionJson(row);
    },
  };
}

export interface RefresherOptions {
  /** How often due subscriptions are looked for (CALENDAR_IMPORT_CHECK_MS). */
  checkMs: number;
  logger: Logger;
}

/**
 * Re-imports the due subscriptions in the background. Each replica looks every `checkMs`; the
 * claim (claimDue) hands a due subscription to one of them only. A run imports as the editor who
 * subscribed, under the import's own rules (address, size, time, one transaction): a failing
 * feed changes nothing, its error is recorded, and the next period tries again. The log says
 * when a feed starts failing and when it recovers, not every failed try.
 */
export function importRefresher(ctx: ImportContext, options: RefresherOptions) {
  const imports = importService(ctx);
  const log = options.logger;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;

  const userOf = (id: number): User | undefined => [...ctx.tokens.values()].find((u) => u.id === id);

  async function runOne(row: SubscriptionRow): Promise<void> {
    const at = ctx.now();
    let result: { ok: true; summary: unknown } | { ok: false; error: string };
    try {
      const answer = await imports.run(userOf(row.user_id), {
        format: row.format as ImportFormat,
        url: row.url,
        source: row.source,
        dryRun: false,
      });
      result = { ok: true, summary: answer.summary };
    } catch (error) {
      result = { ok: false, error: (error as Error).message };
    }
    await recordRun(ctx.knex, row.id, at, result);
    const where = { subscription: row.id, url: row.url };
    if (!result.ok && row.last_ok !== false)
      log.warn({ ...where, error: result.error }, 'feed import failing');
    if (result.ok && row.last_ok === false) log.info(where, 'feed import recovered');
  }

  /** Claims and runs what is due now; answers how many this replica ran. */
  async function runDue(): Promise<number> {
    const due = await claimDue(ctx.knex, ctx.now());
    // One at a time: a conference's feeds should not all hit the database at once.
    for (const row of due) await runOne(row);
    return due.length;
  }

  function tick() {
    if (running) return; // the last check is still importing
    running = runDue()
      .catch((error) => {
        log.error({ err: error }, 'import subscriptions check failed');
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
  }

  return {
    runDue,
    start() {
      timer ??= setInterval(tick, options.checkMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
