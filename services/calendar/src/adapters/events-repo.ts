import type { Knex } from 'knex';
import type { EventRow } from '../domain/render.js';
import { eventFlags } from '../domain/schemas.js';

/** Every column but the search vector. */
const eventColumns = [
  'id',
  'author',
  'status',
  'title',
  'description',
  'excerpt',
  'slug',
  'date_utc',
  'modified_utc',
  'image',
  'password',
  'all_day',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'cost',
  'website',
  ...eventFlags,
  'post_parent',
  'venue_id',
  'event_status',
  'captions',
];

export async function findEvent(knex: Knex, by: { id: number } | { slug: string }) {
  return (await knex('cal_events').where(by).first(eventColumns)) as EventRow | undefined;
}

export async function existingEventIds(knex: Knex, ids: number[]) {
  return (await knex('cal_events').whereIn('id', ids).pluck('id')) as number[];
}

export async function insertEvent(knex: Knex, row: Record<string, unknown>) {
  const [created] = await knex('cal_events').insert(row).returning(eventColumns);
  return created as EventRow;
}

export async function updateEvent(knex: Knex, id: number, changes: Record<string, unknown>) {
  const [updated] = await knex('cal_events').where('id', id).update(changes).returning(eventColumns);
  return updated as EventRow;
}
