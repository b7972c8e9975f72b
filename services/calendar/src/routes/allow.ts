import type { RequestHandler } from 'express';
import { canManageTerms, canWritePosts, type User } from '../domain/auth.js';
import { type Method, routeSpecs } from './table.js';

/** May `user` call `method` on the collection named by a route's first segment. */
function mayUse(user: User | undefined, collection: string, method: Method): boolean {
  if (method === 'GET') return true;
  if (collection === 'categories' || collection === 'tags') return canManageTerms(user, collection);
  return canWritePosts(user);
}

/** The route table's WordPress patterns (`/events/(?P<id>\d+)`) as anchored regexes. */
const routes = routeSpecs.map((spec) => ({
  pattern: new RegExp(`^${spec.route.replace(/\(\?P</g, '(?<')}/?$`),
  collection: spec.route.split('/')[1] ?? '',
  methods: spec.endpoints.flatMap((endpoint) => endpoint.methods) as Method[],
}));

/** The methods `user` may use on `path` (below the namespace), in the table's order; none if no route. */
export function allowedMethods(path: string, user: User | undefined): Method[] {
  const route = routes.find((r) => r.pattern.test(path === '/' ? '' : path));
  return route ? route.methods.filter((method) => mayUse(user, route.collection, method)) : [];
}

/**
 * WordPress's headers on every answer of a matched route: `Allow` with the methods the caller
 * may use there. Set before the handler runs, so that cached answers keep it.
 */
export function allowHeader(): RequestHandler {
  return function allowHeader(req, res, next) {
    const methods = allowedMethods(req.path, res.locals.user as User | undefined);
    if (methods.length > 0) res.set('Allow', methods.join(', '));
    next();
  };
}
