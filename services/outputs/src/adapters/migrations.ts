import { codeMigrations, migrateLatest } from '@live-captions/sql';
import type { Knex } from 'knex';
import { targetKey } from '../domain/destination-url.js';

/** The schema (codeMigrations of @live-captions/sql). Never edit a migration that has shipped: add one. */
const migrations: Record<string, Knex.Migration> = {
  '0001_outputs_schema': {
    async up(knex) {
      // A room's destinations; `url` is the secret (never returned, never logged).
      await knex.schema.createTable('out_destinations', (t) => {
        t.text('id').primary();
        t.text('room').notNullable();
        t.text('kind').notNullable();
        t.text('url');
        // The URL, or `archive`: one destination per target and room (409 otherwise).
        t.text('target_key').notNullable();
        t.text('lang');
        t.bigInteger('created_at').notNullable();
        // The last seq given to a POST body (the platforms' counter), and what was delivered.
        t.integer('last_seq').notNullable().defaultTo(0);
        t.integer('sent').notNullable().defaultTo(0);
        t.bigInteger('clock_offset_ms').notNullable().defaultTo(0);
        t.bigInteger('last_error_at');
        t.text('last_error');
        t.boolean('failing').notNullable().defaultTo(false);
        t.unique(['room', 'target_key']);
      });
      // Where each room's reading stands: advanced in the same transaction as the outbox rows.
      await knex.schema.createTable('out_cursors', (t) => {
        t.text('room').primary();
        t.text('epoch').notNullable();
        t.integer('sequence').notNullable();
      });
      // Captions accepted for a destination, in order; `post_seq` once a POST body holds them.
      await knex.schema.createTable('out_outbox', (t) => {
        t.bigIncrements('id');
        t.text('destination_id').notNullable().references('out_destinations.id').onDelete('CASCADE');
        t.bigInteger('at').notNullable();
        t.text('text').notNullable();
        t.integer('post_seq');
        t.index(['destination_id', 'id']);
      });
      // A POST's body, fixed with its seq before the first attempt; deleted once delivered.
      await knex.schema.createTable('out_posts', (t) => {
        t.text('destination_id').notNullable().references('out_destinations.id').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.text('body').notNullable();
        t.integer('captions').notNullable();
        t.primary(['destination_id', 'seq']);
      });
      // The transcript archive, kept until a writer deletes a session (not tied to the destination).
      await knex.schema.createTable('out_sessions', (t) => {
        t.text('id').primary();
        t.text('room').notNullable();
        t.bigInteger('started_at').notNullable();
        t.bigInteger('last_at');
        t.bigInteger('ended_at');
        t.integer('captions').notNullable().defaultTo(0);
        t.index(['room', 'started_at']);
      });
      await knex.schema.createTable('out_archive', (t) => {
        t.bigIncrements('id');
        t.text('session_id').notNullable().references('out_sessions.id').onDelete('CASCADE');
        // The caption's id (its corrections replace the text); null for a gap mark.
        t.text('caption_key');
        t.bigInteger('at').notNullable();
        t.text('text').notNullable();
        t.index(['session_id', 'caption_key']);
      });
    },
    async down(knex) {
      for (const table of [
        'out_archive',
        'out_sessions',
        'out_posts',
        'out_outbox',
        'out_cursors',
        'out_destinations',
      ])
        await knex.schema.dropTableIfExists(table);
    },
  },
  '0002_tracks_and_translations': {
    async up(knex) {
      // A caption's track (`original`, or a language code): a platform destination gets one, the
      // archive keeps each (a correction replaces in place within its track).
      await knex.schema.alterTable('out_destinations', (t) => {
        t.text('track').notNullable().defaultTo('original');
      });
      await knex.schema.alterTable('out_archive', (t) => {
        t.text('track').notNullable().defaultTo('original');
        t.index(['session_id', 'track', 'caption_key']);
      });
      // A room's translation targets; `key` is the engine's secret (never returned, never logged).
      await knex.schema.createTable('out_translations', (t) => {
        t.text('id').primary();
        t.text('room').notNullable();
        // The target track as published (`ln`); `target_key` its lower case: one per room (409).
        t.text('target').notNullable();
        t.text('target_key').notNullable();
        t.text('source').notNullable();
        t.text('engine').notNullable();
        // The engine's address as given; null: its default (apertium: OUTPUTS_APERTIUM_URL, read
        // at each start; deepl: the host the key's kind uses).
        t.text('url');
        t.text('key');
        t.bigInteger('created_at').notNullable();
        // The relay delivery identity of the frames this target publishes (`client`), and the last
        // sequence given to a frame: a frame keeps its identity through retries and restarts.
        t.text('delivery_client').notNullable();
        t.integer('last_delivery').notNullable().defaultTo(0);
        // The engine package's TrackState (the open sentence) as JSON, and a counter bumped by
        // every step: a step computed from an older state is not stored.
        t.text('track_state').notNullable();
        t.integer('steps').notNullable().defaultTo(0);
        t.integer('sent').notNullable().defaultTo(0);
        t.integer('skipped').notNullable().defaultTo(0);
        t.bigInteger('last_error_at');
        t.text('last_error');
        t.boolean('failing').notNullable().defaultTo(false);
        t.unique(['room', 'target_key']);
      });
      // Original captions (and clears) accepted for a target, in order; `fixed` once the step
      // that translated it stored its frames; deleted when they are all published.
      await knex.schema.createTable('out_translation_queue', (t) => {
        t.bigIncrements('id');
        t.text('translation_id').notNullable().references('out_translations.id').onDelete('CASCADE');
        // The original's id as JSON (a number stays a number in the published frame).
        t.text('caption_id').notNullable();
        t.text('text').notNullable();
        t.boolean('clear').notNullable().defaultTo(false);
        t.bigInteger('at').notNullable();
        t.boolean('fixed').notNullable().defaultTo(false);
        t.index(['translation_id', 'id']);
      });
      // Frames to publish, fixed with their delivery sequence before the first attempt; deleted
      // once the relay acked them. `own`: the caption's own first translation (latency).
      await knex.schema.createTable('out_translation_frames', (t) => {
        t.text('translation_id').notNullable().references('out_translations.id').onDelete('CASCADE');
        t.integer('sequence').notNullable();
        t.bigInteger('queue_id').notNullable();
        t.text('frame').notNullable();
        t.boolean('own').notNullable().defaultTo(false);
        t.bigInteger('at').notNullable();
        t.primary(['translation_id', 'sequence']);
      });
      // Names a room's translations keep unchanged.
      await knex.schema.createTable('out_vocabulary', (t) => {
        t.text('room').primary();
        t.text('terms').notNullable();
      });
    },
    async down(knex) {
      for (const table of [
        'out_vocabulary',
        'out_translation_frames',
        'out_translation_queue',
        'out_translations',
      ])
        await knex.schema.dropTableIfExists(table);
      await knex.schema.alterTable('out_archive', (t) => {
        t.dropIndex(['session_id', 'track', 'caption_key']);
        t.dropColumn('track');
      });
      await knex.schema.alterTable('out_destinations', (t) => t.dropColumn('track'));
    },
  },
  // Numbered 0003 so that it sorts after the translation stage's 0002 (a parallel branch).
  '0003_destination_target_keys': {
    // `target_key` was the URL as typed, so the same stream spelt another way (`UPLOAD.YouTube.com:443`)
    // was a second destination with a second seq counter: keys are now `targetKey`. A room that
    // already has two spellings of one stream keeps the later one's key as it was (the operator
    // removes it), since the unique index allows no two equal keys.
    async up(knex) {
      const rows: { id: string; room: string; url: string | null; target_key: string }[] = await knex(
        'out_destinations',
      )
        .whereNotNull('url')
        .orderBy('created_at')
        .orderBy('id')
        .select('id', 'room', 'url', 'target_key');
      const taken = new Set(rows.map((row) => `${row.room} ${row.target_key}`));
      for (const row of rows) {
        const key = targetKey(row.url ?? '');
        if (key === row.target_key || taken.has(`${row.room} ${key}`)) continue;
        taken.delete(`${row.room} ${row.target_key}`);
        taken.add(`${row.room} ${key}`);
        await knex('out_destinations').where({ id: row.id }).update({ target_key: key });
      }
    },
    async down() {
      // The keys as typed are gone; the normalised ones are as unique.
    },
  },
  '0004_destination_skipped': {
    // Captions archived but not sent to the platform: too old for a live audience when their turn
    // came (OUTPUTS_LIVE_MAX_AGE_MS, after an outage). Shown as the destination's `skipped`.
    async up(knex) {
      await knex.schema.alterTable('out_destinations', (t) => {
        t.integer('skipped').notNullable().defaultTo(0);
      });
    },
    async down(knex) {
      await knex.schema.alterTable('out_destinations', (t) => t.dropColumn('skipped'));
    },
  },
  '0005_publisher_sequences': {
    // Per room and publisher, the last delivery sequence accepted: a caption whose publisher
    // skipped sequences after it tells captions lost (domain/gaps.ts), which a relay restart
    // alone does not.
    // A destination's `lastError` that a gap set (`gap`) clears once the destination delivers
    // again; others (a refused caption, a platform's answer) keep their own rules.
    async up(knex) {
      await knex.schema.alterTable('out_destinations', (t) => t.text('last_error_kind'));
      await knex.schema.createTable('out_publishers', (t) => {
        t.text('room').notNullable();
        t.text('client').notNullable();
        t.bigInteger('sequence').notNullable();
        t.bigInteger('at').notNullable();
        t.primary(['room', 'client']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('out_publishers');
      await knex.schema.alterTable('out_destinations', (t) => t.dropColumn('last_error_kind'));
    },
  },
  '0006_session_events': {
    // Issue 41: a session can be one talk of the calendar (`PUT /rooms/:room/archive/event`, sent
    // by the scheduler): the event's id, title and times as they were when it ran, so that its
    // transcript keeps its name when the calendar changes or forgets it. Null: an ordinary session.
    async up(knex) {
      await knex.schema.alterTable('out_sessions', (t) => {
        t.integer('event_id');
        t.text('event_title');
        t.bigInteger('event_start');
        t.bigInteger('event_end');
      });
    },
    async down(knex) {
      await knex.schema.alterTable('out_sessions', (t) => {
        t.dropColumns('event_id', 'event_title', 'event_start', 'event_end');
      });
    },
  },
};

/** Where knex finds the migrations and keeps their state (a test may step through them). */
export const MIGRATIONS = codeMigrations('out_migrations', migrations);

/** Applies the pending migrations; returns how many ran. */
export async function migrate(knex: Knex): Promise<number> {
  return (await migrateLatest(knex, MIGRATIONS)).length;
}
