/**
 * The caption rooms' durable store: PostgreSQL when `DATABASE_URL` is set (several relay nodes
 * share it), else PGlite under `RELAY_DATA_DIR` (one relay, `pnpm start`; PGlite is one process's
 * database and the relay is the only process that opens it: every other service asks the relay).
 *
 * Every change bumps one version number in the same transaction, so a node tells that something
 * changed by reading one row (its poll), and `GET /rooms` answers that version as its ETag.
 */
import type { CaptionRoomHold, CaptionRoomSchedule, CaptionRoomTokens } from '@live-captions/protocol';
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
  // A room's venue binding and the operator's hold. A table of its own (not columns of
  // relay_caption_rooms): the rooms of the relay's file are bound too, and they have no row there.
  '0002_room_schedules': {
    async up(knex) {
      await knex.schema.createTable('relay_room_schedules', (t) => {
        t.text('room_id').primary();
        t.integer('venue').notNullable();
        t.integer('lead_seconds').notNullable();
        t.integer('tail_seconds').notNullable();
        // on | off | null (the calendar decides)
        t.text('hold');
        t.bigInteger('updated_at').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('relay_room_schedules');
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

interface ScheduleRow {
  room_id: string;
  venue: number;
  lead_seconds: number;
  tail_seconds: number;
  hold: string | null;
}

const scheduleFromRow = (row: ScheduleRow): [string, CaptionRoomSchedule] => [
  row.room_id,
  {
    venue: Number(row.venue),
    leadSeconds: Number(row.lead_seconds),
    tailSeconds: Number(row.tail_seconds),
    hold: row.hold === 'on' || row.hold === 'off' ? row.hold : null,
  },
];

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
        const schedules = (await trx('relay_room_schedules').select('*')) as ScheduleRow[];
        return {
          version: Number(row?.version ?? 0),
          rooms: rows.map(fromRow),
          schedules: new Map(schedules.map(scheduleFromRow)),
        };
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

  /** Removes a room and its binding; false when there is none. */
  async remove(id: string): Promise<boolean> {
    return this.change(async (trx) => {
      await trx('relay_room_schedules').where({ room_id: id }).delete();
      return (await trx('relay_caption_rooms').where({ id }).delete()) === 1;
    });
  }

  /** Binds a room to a venue (keeping its hold), or unbinds it (`null`, the hold goes with it). */
  async bind(id: string, schedule: Omit<CaptionRoomSchedule, 'hold'> | null, at: number): Promise<void> {
    await this.change(async (trx) => {
      if (schedule === null) return (await trx('relay_room_schedules').where({ room_id: id }).delete()) > 0;
      await trx('relay_room_schedules')
        .insert({
          room_id: id,
          venue: schedule.venue,
          lead_seconds: schedule.leadSeconds,
          tail_seconds: schedule.tailSeconds,
          hold: null,
          updated_at: at,
        })
        .onConflict('room_id')
        .merge(['venue', 'lead_seconds', 'tail_seconds', 'updated_at']);
      return true;
    });
  }

  /** Sets a bound room's hold; false when the room has no binding. */
  async hold(id: string, hold: CaptionRoomHold, at: number): Promise<boolean> {
    return this.change(
      async (trx) =>
        (await trx('relay_room_schedules').where({ room_id: id }).update({ hold, updated_at: at })) === 1,
    );
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
