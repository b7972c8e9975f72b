import type { Knex } from 'knex';

/** The schema as knex migrations kept in code. Never edit a migration that has shipped: add one. */
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
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name] as Knex.Migration,
};

/** Applies the pending migrations; returns how many ran. Concurrent replicas wait on knex's lock. */
export async function migrate(knex: Knex): Promise<number> {
  const [, applied] = (await knex.migrate.latest({
    migrationSource: source,
    tableName: 'out_migrations',
  })) as [number, string[]];
  return applied.length;
}
