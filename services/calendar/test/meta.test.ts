import { describe, expect, it } from '@jest/globals';
import { ROOT, useTestApi } from './helpers.js';

const api = useTestApi();

describe('root description', () => {
  it('describes every route with methods and argument specs', async () => {
    const res = await api.request.get(ROOT);
    expect(res.status).toBe(200);
    expect(res.body.namespace).toBe('cal/events/v1');
    const events = res.body.routes['/cal/events/v1/events'];
    expect(events.namespace).toBe('cal/events/v1');
    expect(events.methods).toEqual(['GET', 'POST']);
    expect(events.endpoints[0].args.per_page).toMatchObject({
      required: false,
      default: 10,
      type: 'integer',
    });
    expect(events.endpoints[1].args.title).toMatchObject({ required: true, type: 'string' });
    expect(res.body.routes['/cal/events/v1/events/(?P<id>\\d+)'].methods).toEqual([
      'GET',
      'DELETE',
      'POST',
      'PUT',
      'PATCH',
    ]);
    expect(res.body.routes['/cal/events/v1/categories/(?P<id>\\d+)']).toBeDefined();
    expect(Object.keys(res.body.routes)).toHaveLength(15);
  });

  it('marks the path slug required on venue and organizer updates by slug', async () => {
    const { routes } = (await api.request.get(ROOT)).body;
    for (const path of ['venues', 'organizers']) {
      const route = routes[`/cal/events/v1/${path}/by-slug/(?P<slug>[^/]+)`];
      for (const endpoint of route.endpoints) {
        expect(endpoint.args.slug).toMatchObject({ required: true, type: 'string' });
      }
      expect(Object.keys(route.endpoints[2].args)[0]).toBe('slug');
    }
    const events = routes['/cal/events/v1/events/by-slug/(?P<slug>[^/]+)'];
    expect(events.endpoints[2].args.slug.required).toBe(false);
  });

  it('validates its query', async () => {
    const res = await api.request.get(`${ROOT}?namespace=cal/events/v1&context=view`);
    expect(res.status).toBe(200);
  });
});

describe('/doc', () => {
  it('serves OpenAPI 3.0 with the 14 routes and the components', async () => {
    const res = await api.request.get(`${ROOT}/doc`);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.0\./);
    expect(res.body.info).toMatchObject({
      version: '1.0.0',
      title: expect.any(String),
      description: expect.any(String),
    });
    expect(res.body.servers[0].url).toMatch(/\/wp-json\/cal\/events\/v1$/);
    expect(Object.keys(res.body.paths)).toHaveLength(14);
    expect(res.body.paths['/events'].get.parameters.map((p: { name: string }) => p.name)).toContain(
      'strict_dates',
    );
    expect(res.body.paths['/events/{id}'].delete).toBeDefined();
    expect(Object.keys(res.body.components.schemas).sort()).toEqual([
      'CostDetails',
      'DateDetails',
      'Event',
      'Image',
      'Organizer',
      'Term',
      'Venue',
    ]);
    expect(res.body.components.schemas.Event.properties.start_date_details.$ref).toBe(
      '#/components/schemas/DateDetails',
    );
  });

  it('describes list responses with the collection envelope', async () => {
    const { paths } = (await api.request.get(`${ROOT}/doc`)).body;
    const lists: [string, string][] = [
      ['events', 'Event'],
      ['venues', 'Venue'],
      ['organizers', 'Organizer'],
      ['categories', 'Term'],
      ['tags', 'Term'],
    ];
    for (const [collection, component] of lists) {
      const ok = paths[`/${collection}`].get.responses['200'];
      const schema = ok.content['application/json'].schema;
      expect(Object.keys(schema.properties)).toEqual([
        collection,
        'rest_url',
        'next_rest_url',
        'previous_rest_url',
        'total',
        'total_pages',
      ]);
      expect(schema.properties[collection]).toEqual({
        type: 'array',
        items: { $ref: `#/components/schemas/${component}` },
      });
      expect(schema.properties.total).toEqual({ type: 'integer' });
      expect(schema.required).toEqual([collection, 'rest_url', 'total', 'total_pages']);
      expect(Object.keys(ok.headers)).toEqual([
        'X-TEC-Total',
        'X-TEC-TotalPages',
        'X-WP-Total',
        'X-WP-TotalPages',
      ]);
      const created = paths[`/${collection}`].post.responses['201'].content['application/json'].schema;
      expect(created).toEqual({ $ref: `#/components/schemas/${component}` });
    }
  });

  it('answers rest_no_route for unknown paths', async () => {
    const res = await api.request.get(`${ROOT}/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'rest_no_route', message: expect.any(String), data: { status: 404 } });
  });
});

describe('GET /metrics', () => {
  it('counts API requests by route pattern and status, outside the REST root', async () => {
    await api.request.get(`${ROOT}/events/999999`).expect(404);
    const res = await api.request.get('/metrics').expect(200);
    expect(res.text).toMatch(
      /^calendar_http_requests_total\{route="\/events\/:id",method="GET",status="404"\} 1$/m,
    );
    // Raw paths never become labels (the id could be any of millions of values).
    expect(res.text).not.toMatch(/route="[^"]*999999/);
  });
});
