import { describe, expect, it } from '@jest/globals';
import { apiRouter, expressPath } from '../src/routes/router.js';
import { routeSpecs } from '../src/routes/table.js';

describe('the route table feeds express', () => {
  it('turns WordPress patterns into express paths', () => {
    expect(expressPath('')).toEqual({ path: '/', digits: false });
    expect(expressPath('/events/(?P<id>\\d+)')).toEqual({ path: '/events/:id', digits: true });
    expect(expressPath('/venues/by-slug/(?P<slug>[^/]+)')).toEqual({
      path: '/venues/by-slug/:slug',
      digits: false,
    });
  });

  it('refuses to start when an operation of the table has no handler', () => {
    const handlers = Object.fromEntries(
      routeSpecs.flatMap((spec) => spec.endpoints.map((e) => [e.operation, () => undefined])),
    );
    expect(() => apiRouter(handlers)).not.toThrow();
    const { 'tags.delete': _dropped, ...missing } = handlers;
    expect(() => apiRouter(missing)).toThrow('no handler for tags.delete');
  });
});
