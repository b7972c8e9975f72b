import { codeMigrations, migrateLatest } from '@live-captions/sql';
import type { Knex } from 'knex';
import type { User } from '../domain/auth.js';
import { filterStoredHtml } from './kses-migration.js';

/**
 * The schema, as knex migrations kept in code (codeMigrations of @live-captions/sql) so that the
 * built service and the `pnpm migrate` script run the same list. Never edit a migration that has
 * shipped: add one.
 */

/** The tables an event list reads: their writes start a new list generation (0004). */
const LISTED_TABLES = [
  'cal_events',
  'cal_venues',
  'cal_organizers',
  'cal_terms',
  'cal_event_terms',
  'cal_event_organizers',
];

/** The migrations; `users` (the tokens file's) tell 0005 which authors may keep their markup. */
const migrationsFor = (users: User[]): Record<string, Knex.Migration> => ({
  '0001_calendar_schema': {
    async up(knex) {
      // Events, venues and organizers share one id space, as WordPress posts do.
      await knex.raw('CREATE SEQUENCE cal_post_id_seq');
      const post = (t: Knex.CreateTableBuilder) => {
        t.integer('id').primary().defaultTo(knex.raw("nextval('cal_post_id_seq')"));
        t.integer('author').notNullable();
        t.text('status').notNullable();
        t.text('title').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.text('excerpt').notNullable().defaultTo('');
        t.text('slug').notNullable();
        t.timestamp('date_utc', { useTz: true }).notNullable();
        t.timestamp('modified_utc', { useTz: true }).notNullable();
        t.text('image');
      };
      await knex.schema.createTable('cal_venues', (t) => {
        post(t);
        for (const name of ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'website']) {
          t.text(name);
        }
        t.text('stateprovince');
        t.double('geo_lat');
        t.double('geo_lng');
        t.boolean('show_map').notNullable().defaultTo(true);
        t.boolean('show_map_link').notNullable().defaultTo(true);
        t.unique(['slug']);
      });
      await knex.schema.createTable('cal_organizers', (t) => {
        post(t);
        t.text('phone');
        t.text('website');
        t.text('email');
        t.unique(['slug']);
      });
      await knex.schema.createTable('cal_events', (t) => {
        post(t);
        t.text('password').notNullable().defaultTo('');
        t.boolean('all_day').notNullable().defaultTo(false);
        // Wall clock in the event's timezone, and the same moments in UTC for filtering.
        t.timestamp('start_local', { useTz: false }).notNullable();
        t.timestamp('end_local', { useTz: false }).notNullable();
        t.timestamp('start_utc', { useTz: true }).notNullable();
        t.timestamp('end_utc', { useTz: true }).notNullable();
        t.text('timezone').notNullable();
        t.text('cost');
        t.text('website');
        t.boolean('show_map').notNullable().defaultTo(true);
        t.boolean('show_map_link').notNullable().defaultTo(true);
        t.boolean('hide_from_listings').notNullable().defaultTo(false);
        t.boolean('sticky').notNullable().defaultTo(false);
        t.boolean('featured').notNullable().defaultTo(false);
        t.boolean('ticketed').notNullable().defaultTo(false);
        t.integer('post_parent').references('id').inTable('cal_events').onDelete('SET NULL');
        t.integer('venue_id').references('id').inTable('cal_venues').onDelete('SET NULL');
        t.unique(['slug']);
        t.index(['venue_id']);
        t.index(['post_parent']);
        t.index(['date_utc', 'id']);
      });
      await knex.raw(`
        ALTER TABLE cal_events ADD COLUMN search tsvector GENERATED ALWAYS AS (
          setweight(to_tsvector('english', title), 'A') ||
          setweight(to_tsvector('english', excerpt), 'B') ||
          setweight(to_tsvector('english', description), 'C')
        ) STORED`);
      await knex.raw('CREATE INDEX cal_events_search ON cal_events USING gin (search)');
      // The default list: status = ?, start window, not hidden, ordered by start then id. The
      // end date rides along so the count is an index-only scan.
      await knex.raw(`
        CREATE INDEX cal_events_listing ON cal_events (status, start_utc, id) INCLUDE (end_utc)
        WHERE NOT hide_from_listings`);
      await knex.schema.createTable('cal_event_organizers', (t) => {
        t.integer('event_id').notNullable().references('id').inTable('cal_events').onDelete('CASCADE');
        t.integer('organizer_id')
          .notNullable()
          .references('id')
          .inTable('cal_organizers')
          .onDelete('CASCADE');
        t.integer('position').notNullable().defaultTo(0);
        t.primary(['event_id', 'organizer_id']);
        t.index(['organizer_id']);
      });
      await knex.schema.createTable('cal_terms', (t) => {
        t.increments('id').primary();
        t.text('taxonomy').notNullable();
        t.text('name').notNullable();
        t.text('slug').notNullable();
        t.text('description').notNullable().defaultTo('');
        t.integer('parent').notNullable().defaultTo(0);
        // Published events carrying the term, kept up to date by every event write (as WordPress).
        t.integer('count').notNullable().defaultTo(0);
        t.unique(['taxonomy', 'slug']);
      });
      await knex.schema.createTable('cal_event_terms', (t) => {
        t.integer('event_id').notNullable().references('id').inTable('cal_events').onDelete('CASCADE');
        t.integer('term_id').notNullable().references('id').inTable('cal_terms').onDelete('CASCADE');
        t.primary(['event_id', 'term_id']);
        t.index(['term_id', 'event_id']);
      });
    },
    async down(knex) {
      for (const table of [
        'cal_event_terms',
        'cal_terms',
        'cal_event_organizers',
        'cal_events',
        'cal_organizers',
        'cal_venues',
      ]) {
        await knex.schema.dropTableIfExists(table);
      }
      await knex.raw('DROP SEQUENCE IF EXISTS cal_post_id_seq');
    },
  },
  '0002_map_flags_default_false': {
    // The Events Calendar creates events and venues with show_map / show_map_link off; rows
    // already stored keep their values.
    async up(knex) {
      for (const table of ['cal_events', 'cal_venues']) {
        await knex.raw(
          `ALTER TABLE ${table} ALTER COLUMN show_map SET DEFAULT false, ALTER COLUMN show_map_link SET DEFAULT false`,
        );
      }
    },
    async down(knex) {
      for (const table of ['cal_events', 'cal_venues']) {
        await knex.raw(
          `ALTER TABLE ${table} ALTER COLUMN show_map SET DEFAULT true, ALTER COLUMN show_map_link SET DEFAULT true`,
        );
      }
    },
  },
  '0003_drop_unused_event_date_index': {
    // No statement orders or filters events by publication date over many rows any more
    // (`include` lists fetch their few ids through the primary key): the index only cost writes.
    async up(knex) {
      await knex.raw('DROP INDEX IF EXISTS cal_events_date_utc_id_index');
    },
    async down(knex) {
      await knex.raw('CREATE INDEX IF NOT EXISTS cal_events_date_utc_id_index ON cal_events (date_utc, id)');
    },
  },
  '0004_list_generation': {
    // The generation event lists are memoized under (list-memo.ts): replaced by every statement
    // that writes a table a list reads, in the writer's transaction, so a reader sees the new
    // value exactly when it sees the new data. A random value rather than a counter: a database
    // restored or created again never repeats one. BEFORE, not AFTER, the statement: the row's
    // lock is taken before the statement's own row locks, so two writers do not take rows and
    // the generation in opposite orders (a deadlock with a name lock taken earlier is a write
    // race writeTransaction retries). A table added later that lists read needs the same trigger.
    async up(knex) {
      await knex.raw(`CREATE TABLE cal_generation (
        single boolean PRIMARY KEY DEFAULT true CHECK (single), value uuid NOT NULL)`);
      await knex.raw('INSERT INTO cal_generation (value) VALUES (gen_random_uuid())');
      await knex.raw(`CREATE FUNCTION cal_next_generation() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE cal_generation SET value = gen_random_uuid(); RETURN NULL; END $$`);
      for (const table of LISTED_TABLES) {
        await knex.raw(`CREATE TRIGGER cal_next_generation BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
          ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION cal_next_generation()`);
      }
    },
    async down(knex) {
      for (const table of LISTED_TABLES) await knex.raw(`DROP TRIGGER cal_next_generation ON ${table}`);
      await knex.raw('DROP FUNCTION cal_next_generation()');
      await knex.raw('DROP TABLE cal_generation');
    },
  },
  '0005_filter_stored_html': {
    // Writes of roles without unfiltered_html are filtered since issue 28; what they stored
    // before is filtered once here (kses-migration.ts). Filtering cannot be undone.
    up: (knex) => filterStoredHtml(knex, users),
    async down() {},
  },
  '0006_venue_map_flags_default_true': {
    // The Events Calendar turns a new venue's show_map and show_map_link on when the request
    // does not turn them off (Tribe__Events__Venue::create); 0002 had them off. Stored rows keep
    // their values: an explicit false cannot be told from the old default.
    async up(knex) {
      await knex.raw(
        'ALTER TABLE cal_venues ALTER COLUMN show_map SET DEFAULT true, ALTER COLUMN show_map_link SET DEFAULT true',
      );
    },
    async down(knex) {
      await knex.raw(
        'ALTER TABLE cal_venues ALTER COLUMN show_map SET DEFAULT false, ALTER COLUMN show_map_link SET DEFAULT false',
      );
    },
  },
  '0007_event_import': {
    // Issue 41: events imported from a schedule keep the feed's key (iCalendar UID, frab guid)
    // under the source they came from, so a second import updates them instead of adding
    // copies; and an event can be cancelled (schema.org's EventCancelled, TEC's event status)
    // while it stays listed, as a cancelled talk should still show, marked.
    async up(knex) {
      await knex.schema.alterTable('cal_events', (t) => {
        t.text('import_source');
        t.text('import_key');
        t.integer('import_sequence').notNullable().defaultTo(0);
        t.text('event_status').notNullable().defaultTo('scheduled');
      });
      await knex.raw(`CREATE UNIQUE INDEX cal_events_import ON cal_events (import_source, import_key)
        WHERE import_source IS NOT NULL`);
    },
    async down(knex) {
      await knex.raw('DROP INDEX IF EXISTS cal_events_import');
      await knex.schema.alterTable('cal_events', (t) => {
        t.dropColumns('import_source', 'import_key', 'import_sequence', 'event_status');
      });
    },
  },
  '0008_event_captions': {
    // Issue 41: the `captions` extension field (domain/captions.ts), written by the live-captions
    // scheduler through the event routes. `json`, not `jsonb`: the text is kept as written, so
    // its keys answer in the order the API documents ({room, live, transcripts}). cal_events
    // already has the list generation trigger (0004): writing it renews the list memo.
    async up(knex) {
      await knex.schema.alterTable('cal_events', (t) => t.json('captions'));
    },
    async down(knex) {
      await knex.schema.alterTable('cal_events', (t) => t.dropColumn('captions'));
    },
  },
  '0009_import_subscriptions': {
    // Issue 41: a feed imported again every N minutes (one row per url). Replicas claim a due
    // row by moving its next_run_at forward in one UPDATE, so only one of them runs it.
    async up(knex) {
      await knex.schema.createTable('cal_import_subscriptions', (t) => {
        t.increments('id');
        t.text('url').notNullable().unique();
        t.text('format').notNullable();
        t.text('source').notNullable();
        t.integer('every_minutes').notNullable();
        t.integer('user_id').notNullable();
        t.timestamp('created_utc', { useTz: true }).notNullable();
        t.timestamp('next_run_at', { useTz: true }).notNullable().index();
        t.timestamp('last_run_at', { useTz: true });
        t.boolean('last_ok');
        t.json('last_summary');
        t.text('last_error');
      });
    },
    async down(knex) {
      await knex.schema.dropTable('cal_import_subscriptions');
    },
  },
});

/**
 * Applies the pending migrations. `users` are the known users (the tokens file): without them
 * every record's stored HTML counts as written by a role without unfiltered_html (0005).
 */
export async function migrate(knex: Knex, users: User[] = []): Promise<string[]> {
  return migrateLatest(knex, calendarMigrations(users));
}

/** Where knex finds the migrations (for `users`, see above) and keeps their state. */
export const calendarMigrations = (users: User[] = []): Knex.MigratorConfig =>
  codeMigrations('cal_migrations', migrationsFor(users));
