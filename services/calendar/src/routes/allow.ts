import type { RequestHandler } from 'express';
import { isPostCollection, type PostCollection } from '../adapters/owners.js';
import { canEdit, canManageTerms, canWritePosts, isEditor, type Owned, type User } from '../domain/auth.js';
import { encodeSlugChars } from '../domain/slug.js';
import { type Method, routeSpecs } from './table.js';

/**
 * May `user` call `method` on the collection named by a route's first segment. `owner` is the
 * record an item route of events, venues or organizers names (null: none such; undefined: not
 * looked up). WordPress's Allow header asks each handler's permission_callback with the request,
 * and TEC's Single_Event / Single_Venue / Single_Organizer::can_edit and can_delete check
 * edit_post / delete_post on that record (by-slug routes too: their handler sets `id` first). A
 * missing event falls back to the role's edit_posts; a missing venue or organizer has
 * map_meta_cap's do_not_allow, which no role passes.
 */
function mayUse(user: User | undefined, collection: string, method: Method, owner?: Owned | null): boolean {
  if (method === 'GET') return true;
  if (collection === 'categories' || collection === 'tags') return canManageTerms(user, collection);
  if (owner === null) return collection === 'events' && canWritePosts(user);
  if (owner !== undefined) return canEdit(user, owner);
  return canWritePosts(user);
}

/** The route table's WordPress patterns (`/events/(?P<id>\d+)`) as anchored regexes. */
const routes = routeSpecs.map((spec) => ({
  pattern: new RegExp(`^${spec.route.replace(/\(\?P</g, '(?<')}/?$`),
  collection: spec.route.split('/')[1] ?? '',
  methods: spec.endpoints.flatMap((endpoint) => endpoint.methods) as Method[],
}));

const matchRoute = (path: string) => {
  for (const route of routes) {
    const match = route.pattern.exec(path === '/' ? '' : path);
    if (match) return { route, groups: match.groups ?? {} };
  }
  return undefined;
};

/** The methods `user` may use on `path` (below the namespace), in the table's order; none if no route. */
export function allowedMethods(path: string, user: User | undefined, owner?: Owned | null): Method[] {
  const found = matchRoute(path);
  if (!found) return [];
  return found.route.methods.filter((method) => mayUse(user, found.route.collection, method, owner));
}

/** The item a path names, as the handlers look it up (a slug decoded, then stored-encoded). */
function itemOf(groups: Record<string, string>): { id: number } | { slug: string } | undefined {
  if (groups.id !== undefined) return { id: Number(groups.id) };
  if (groups.slug === undefined) return undefined;
  try {
    return { slug: encodeSlugChars(decodeURIComponent(groups.slug)) };
  } catch {
    return undefined; // an undecodable path: the route answers 400 and no method is looked up
  }
}

export type OwnerLookup = (
  collection: PostCollection,
  by: { id: number } | { slug: string },
) => Promise<Owned | null>;

/**
 * WordPress's headers on every answer of a matched route: `Allow` with the methods the caller
 * may use there, per record on the item routes of events, venues and organizers (looked up only
 * for roles between reading and editing everything, where the record decides). Set before the
 * handler runs, so that cached answers keep it.
 */
export function allowHeader(lookup: OwnerLookup): RequestHandler {
  return async function allowHeader(req, res, next) {
    const user = res.locals.user as User | undefined;
    const found = matchRoute(req.path);
    if (!found) return next();
    const { collection } = found.route;
    const item = itemOf(found.groups);
    let owner: Owned | null | undefined;
    const decides = canWritePosts(user) && (!isEditor(user) || collection !== 'events');
    if (item && isPostCollection(collection) && decides) owner = await lookup(collection, item);
    const methods = allowedMethods(req.path, user, owner);
    if (methods.length > 0) res.set('Allow', methods.join(', '));
    next();
  };
}
