/**
 * The caption rooms' durable store: PostgreSQL when `DATABASE_URL` is set (several relay nodes
 * share it), else PGlite under `RELAY_DATA_DIR` (one relay, `pnpm start`; PGlite is one process's
 * database and the relay is the only process that opens it: every other service asks the relay).
 *
 * Every change bumps one version number in the same transaction, so a node tells that something
 * changed by reading one row (its poll), and `GET /rooms` answers that version as its ETag.
 */
import type { CaptionRoomTokens } from '@live-captions/protocol';
import { codeMigrations, type Database, migrateLatest, openDatabase } from '@live-captions/sql';
import type { Knex } from 'knex';
import type { RegistrySnapshot, StoredCaptionRoom } from '../domain/caption-rooms.js';

const migrations: Record<string, Knex.Migration> = {
  '0001_caption_rooms': {
    async up(knex) {
      await knex.schema.createTable('relay_caption_rooms', (t) => {
        t.text('id').primary();
        t.text('name').notNullable();
        t.text('source_read').notNullable();
        t.text('source_write').notNullable();
        t.text('output_read').notNullable();
        t.text('output_write').notNullable();
        t.bigInteger('created_at').notNullable();
        t.bigInteger('updated_at').notNullable();
      });
      await knex.schema.createTable('relay_rooms_version', (t) => {
        t.integer('id').primary();
        t.bigInteger('version').notNullable();
      });
      await knex('relay_rooms_version').insert({ id: 1, version: 0 });
    },
    async down(knex) {
      await knex.schema.dropTable('relay_rooms_version');
      await knex.schema.dropTable('relay_caption_rooms');
    },
  },
};

const MIGRATIONS = codeMigrations('relay_migrations', migrations);

interface Row {
  id: string;
  name: string;
  source_read: string;
  source_write: string;
  output_read: string;
  output_write: string;
  created_at: number | string;
  updated_at: number | string;
}

const fromRow = (row: Row): StoredCaptionRoom => ({
  id: row.id,
  name: row.name,
  tokens: {
    sourceRead: row.source_read,
    sourceWrite: row.source_write,
    outputRead: row.output_read,
    outputWrite: row.output_write,
  },
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const tokenColumns = (tokens: CaptionRoomTokens) => ({
  source_read: tokens.sourceRead,
  source_write: tokens.sourceWrite,
  output_read: tokens.outputRead,
  output_write: tokens.outputWrite,
});

export class RoomsStore {
  private constructor(private readonly db: Database) {}

  /** Opens the database and applies its migrations (concurrent nodes wait on knex's lock). */
  static async open(options: { url?: string; dataDir: string }): Promise<RoomsStore> {
    const db = await openDatabase({ url: options.url, dataDir: options.dataDir, poolSize: 4 });
    try {
      await migrateLatest(db.knex, MIGRATIONS);
    } catch (error) {
      await db.close();
      throw error;
    }
    return new RoomsStore(db);
  }

  get kind(): Database['kind'] {
    return this.db.kind;
  }

  async version(): Promise<number> {
    const row = await this.db.knex('relay_rooms_version').where({ id: 1 }).first('version');
    return Number(row?.version ?? 0);
  }

  /** The rooms and the version they are at, read in one transaction. */
  async snapshot(): Promise<RegistrySnapshot> {
    return this.db.knex.transaction(
      async (trx) => {
        const row = await trx('relay_rooms_version').where({ id: 1 }).first('version');
        const rows = (await trx('relay_caption_rooms').select('*').orderBy('created_at')) as Row[];
        return { version: Number(row?.version ?? 0), rooms: rows.map(fromRow) };
      },
      { isolationLevel: 'repeatable read' },
    );
  }

  /** Inserts a room; false when its id exists (another node made it first). */
  async create(room: StoredCaptionRoom): Promise<boolean> {
    return this.change(async (trx) => {
      const inserted = await trx('relay_caption_rooms')
        .insert({
          id: room.id,
          name: room.name,
          ...tokenColumns(room.tokens),
          created_at: room.createdAt,
          updated_at: room.updatedAt,
        })
        .onConflict('id')
        .ignore()
        .returning('id');
      return inserted.length === 1;
    });
  }

  /** Renames a room; false when there is none. */
  async rename(id: string, name: string, at: number): Promise<boolean> {
    return this.change(
      async (trx) => (await trx('relay_caption_rooms').where({ id }).update({ name, updated_at: at })) === 1,
    );
  }

  /** Replaces a room's four tokens; false when there is none. */
  async rotate(id: string, tokens: CaptionRoomTokens, at: number): Promise<boolean> {
    return this.change(
      async (trx) =>
        (await trx('relay_caption_rooms')
          .where({ id })
          .update({ ...tokenColumns(tokens), updated_at: at })) === 1,
    );
  }

  /** Removes a room; false when there is none. */
  async remove(id: string): Promise<boolean> {
    return this.change(async (trx) => (await trx('relay_caption_rooms').where({ id }).delete()) === 1);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** Runs a change and bumps the version with it, only when it changed something. */
  private change(apply: (trx: Knex.Transaction) => Promise<boolean>): Promise<boolean> {
    return this.db.knex.transaction(async (trx) => {
      const changed = await apply(trx);
      if (changed) await trx('relay_rooms_version').where({ id: 1 }).increment('version', 1);
      return changed;
    });
  }
}
