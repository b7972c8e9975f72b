import type { Knex } from 'knex';
import { findEventWithRelations } from '../adapters/event-json.js';
import type { Tokens } from '../adapters/tokens.js';
import { type User, viewerOf } from '../domain/auth.js';
import { renderEvent, renderRelations, type Site } from '../domain/render.js';

/** What the services need from the app: the database, the site's zone, users, the clock. */
export interface ServiceContext {
  knex: Knex;
  timezone: string;
  tokens: Tokens;
  now: () => Date;
  /** Bytes of rendered list events kept for reuse (0: render every event of every list). */
  renderedEventsBytes?: number;
}

/** The event `id` rendered with its relations as `user` may see them (after a write). */
export async function renderOne(knex: Knex, id: number, site: Site, user: User | undefined) {
  const found = await findEventWithRelations(knex, { id }, viewerOf(user));
  return renderEvent(found!.row, renderRelations(found!.relations, site), site);
}
