import type { Knex } from 'knex';
import type { Owned } from '../domain/auth.js';

const tables = { events: 'cal_events', venues: 'cal_venues', organizers: 'cal_organizers' } as const;
export type PostCollection = keyof typeof tables;
export const isPostCollection = (name: string): name is PostCollection => name in tables;

/** The author and status of one event, venue or organizer, for its Allow header; null when none. */
export async function ownerOf(
  knex: Knex,
  collection: PostCollection,
  by: { id: number } | { slug: string },
): Promise<Owned | null> {
  return ((await knex(tables[collection]).where(by).first('author', 'status')) as Owned | undefined) ?? null;
}
