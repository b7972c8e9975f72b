import { codeMigrations, migrateLatest } from '@live-captions/sql';
import type { Knex } from 'knex';

/** The schema (codeMigrations of @live-captions/sql). Never edit a migration that has shipped: add one. */
const migrations: Record<string, Knex.Migration> = {
  '0001_sources_schema': {
    async up(knex) {
      await knex.schema.createTable('src_sources', (t) => {
        t.text('id').primary();
        t.text('room').notNullable();
        t.text('name').notNullable();
        // pull | rtmp-push | srt-push
        t.text('kind').notNullable();
        // Secrets, never returned whole nor logged: a pull URL (may hold credentials or a key), a
        // push source's stream key (its RTMP stream name, its SRT passphrase).
        t.text('url');
        t.text('stream_key').unique();
        t.integer('srt_port').unique();
        // The capture settings: language, mode, vocabulary and word rules, window.
        t.text('settings').notNullable();
        // What the operator asked for: running or not.
        t.boolean('running').notNullable().defaultTo(true);
        t.bigInteger('created_at').notNullable();
        // The last caption number given (ids `<prefix>-<n>` go on across restarts and replicas).
        t.integer('caption_seq').notNullable().defaultTo(0);
        t.integer('captions_sent').notNullable().defaultTo(0);
        // The replica running it reports here every few seconds (state, reason, level, behind).
        t.text('status');
        t.bigInteger('status_at');
        t.index(['room']);
      });
    },
    async down(knex) {
      await knex.schema.dropTableIfExists('src_sources');
    },
  },
  // Caption ids were `<prefix>-<n>` with n counted here per caption; a source deleted while
  // running had no row to count in and sent `<prefix>-0` for each last window. Ids are now
  // `<prefix>-<run>-<n>`: the column counts runs, n counts in memory. The runs go on from the old
  // caption count, and the old ids have one part fewer, so none can come again.
  '0002_run_seq': {
    async up(knex) {
      await knex.schema.alterTable('src_sources', (t) => {
        t.renameColumn('caption_seq', 'run_seq');
      });
    },
    async down(knex) {
      await knex.schema.alterTable('src_sources', (t) => {
        t.renameColumn('run_seq', 'caption_seq');
      });
    },
  },
};

/** Applies the pending migrations; returns how many ran. */
export async function migrate(knex: Knex): Promise<number> {
  return (await migrateLatest(knex, codeMigrations('src_migrations', migrations))).length;
}
