import { type RequestHandler, Router } from 'express';
import type { Handlers } from './context.js';
import { routeSpecs } from './table.js';

/**
 * `/events/(?P<id>\d+)` -> `/events/:id` (with a digits check: Express 5 paths have no inline
 * regexes), `(?P<slug>[^/]+)` -> `:slug`, the root `''` -> `/`.
 */
export function expressPath(route: string): { path: string; digits: boolean } {
  const digits = route.includes('(?P<id>\\d+)');
  const path = route.replace(/\(\?P<(\w+)>[^)]*\)/g, ':$1');
  return { path: path === '' ? '/' : path, digits };
}

/** Item routes match digit ids only; anything else falls through to 404 `rest_no_route`. */
const digitsOnly: RequestHandler = (req, _res, next) =>
  /^\d+$/.test(String(req.params.id)) ? next() : next('route');

/**
 * The API's express router, built from the route table: each method of each route calls the
 * handler of its operation. A table operation without a handler fails at startup.
 */
export function apiRouter(handlers: Handlers): Router {
  const router = Router();
  for (const spec of routeSpecs) {
    const { path, digits } = expressPath(spec.route);
    for (const endpoint of spec.endpoints) {
      const handler = handlers[endpoint.operation];
      if (!handler) throw new Error(`route table: no handler for ${endpoint.operation}`);
      for (const method of endpoint.methods) {
        const register =
          router[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'].bind(router);
        if (digits) register(path, digitsOnly, handler);
        else register(path, handler);
      }
    }
  }
  return router;
}
