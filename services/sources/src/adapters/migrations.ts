import type { Knex } from 'knex';

/** The schema as knex migrations kept in code. Never edit a migration that has shipped: add one. */
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
    tableName: 'src_migrations',
  })) as [number, string[]];
  return applied.length;
}
