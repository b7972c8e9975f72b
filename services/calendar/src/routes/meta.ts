import { Router } from 'express';
import { z } from 'zod';
import { restBase } from '../domain/render.js';
import * as s from '../domain/schemas.js';
import { validate } from '../domain/validate.js';
import { type AppContext, handle, NAMESPACE, params, siteOf } from './context.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Endpoint {
  methods: Method[];
  args: z.ZodObject;
  summary: string;
  /** Component answered, for /doc. */
  returns?: string;
}

interface RouteSpec {
  /** WordPress route pattern below the namespace (`/events/(?P<id>\d+)`). */
  route: string;
  /** OpenAPI path (`/events/{id}`); the root has none. */
  openapi?: string;
  endpoints: Endpoint[];
}

const writes: Method[] = ['POST', 'PUT', 'PATCH'];
const withId = (schema: z.ZodObject) => s.idParam.extend(schema.shape);
const withSlug = (schema: z.ZodObject) => s.slugParam.extend(schema.shape);
/** The required path `slug` wins over an optional body `slug` of the same name, keeping its place. */
const withPathSlug = (schema: z.ZodObject) => withSlug(schema).extend(s.slugParam.shape);
const optionalSlug = (schema: z.ZodObject) =>
  z.object({ slug: s.text().optional().describe('Slug') }).extend(schema.shape);

function itemRoutes(
  path: string,
  noun: string,
  write: z.ZodObject,
  component: string,
  passworded: boolean,
): RouteSpec[] {
  const read = passworded ? s.passwordQuery : z.object({});
  const update = passworded ? write.partial().extend(s.passwordQuery.shape) : write.partial();
  return [
    {
      route: `/${path}/(?P<id>\\d+)`,
      openapi: `/${path}/{id}`,
      endpoints: [
        { methods: ['GET'], args: withId(read), summary: `Returns one ${noun}`, returns: component },
        {
          methods: ['DELETE'],
          args: withId(read),
          summary: `Moves one ${noun} to the trash`,
          returns: component,
        },
        { methods: writes, args: withId(update), summary: `Updates one ${noun}`, returns: component },
      ],
    },
    {
      route: `/${path}/by-slug/(?P<slug>[^/]+)`,
      openapi: `/${path}/by-slug/{slug}`,
      endpoints: [
        {
          methods: ['GET'],
          args: withSlug(read),
          summary: `Returns one ${noun} by slug`,
          returns: component,
        },
        {
          methods: ['DELETE'],
          args: withSlug(read),
          summary: `Moves one ${noun} to the trash`,
          returns: component,
        },
        {
          methods: writes,
          args: path === 'events' ? optionalSlug(update) : withPathSlug(update),
          summary: `Updates one ${noun} by slug`,
          returns: component,
        },
      ],
    },
  ];
}

function termRoutes(path: string, noun: string, write: z.ZodObject): RouteSpec[] {
  return [
    {
      route: `/${path}`,
      openapi: `/${path}`,
      endpoints: [
        { methods: ['GET'], args: s.termListQuery, summary: `Lists event ${noun}s`, returns: 'Term' },
        { methods: ['POST'], args: write, summary: `Creates an event ${noun}`, returns: 'Term' },
      ],
    },
    {
      route: `/${path}/(?P<id>\\d+)`,
      openapi: `/${path}/{id}`,
      endpoints: [
        { methods: ['GET'], args: s.idParam, summary: `Returns one event ${noun}`, returns: 'Term' },
        {
          methods: writes,
          args: withId(write.partial()),
          summary: `Updates one event ${noun}`,
          returns: 'Term',
        },
        { methods: ['DELETE'], args: s.idParam, summary: `Deletes one event ${noun}`, returns: 'Term' },
      ],
    },
  ];
}

/** Every route of the API, with the schemas that validate it. */
export const routeSpecs: RouteSpec[] = [
  { route: '', endpoints: [{ methods: ['GET'], args: s.rootQuery, summary: 'Describes the namespace' }] },
  {
    route: '/doc',
    openapi: '/doc',
    endpoints: [{ methods: ['GET'], args: z.object({}), summary: 'OpenAPI document' }],
  },
  {
    route: '/events',
    openapi: '/events',
    endpoints: [
      { methods: ['GET'], args: s.eventListQuery, summary: 'Lists events', returns: 'Event' },
      {
        methods: ['POST'],
        args: s.eventWrite.extend({ password: s.text().optional() }),
        summary: 'Creates an event',
        returns: 'Event',
      },
    ],
  },
  ...itemRoutes('events', 'event', s.eventWrite, 'Event', true),
  ...(['venue', 'organizer'] as const).flatMap((noun) => {
    const write = noun === 'venue' ? s.venueWrite : s.organizerWrite;
    const component = noun === 'venue' ? 'Venue' : 'Organizer';
    return [
      {
        route: `/${noun}s`,
        openapi: `/${noun}s`,
        endpoints: [
          {
            methods: ['GET'] as Method[],
            args: s.linkedListQuery,
            summary: `Lists ${noun}s`,
            returns: component,
          },
          { methods: ['POST'] as Method[], args: write, summary: `Creates a ${noun}`, returns: component },
        ],
      },
      ...itemRoutes(`${noun}s`, noun, write, component, false),
    ];
  }),
  ...termRoutes('categories', 'category', s.categoryWrite),
  ...termRoutes('tags', 'tag', s.tagWrite),
];

type JsonSchema = Record<string, unknown>;

/** The Events Calendar's list envelope: the items under the collection's own name. */
function listEnvelope(collection: string, item: JsonSchema): JsonSchema {
  return {
    type: 'object',
    properties: {
      [collection]: { type: 'array', items: item },
      rest_url: { type: 'string' },
      next_rest_url: { type: 'string', description: 'Omitted on the last page' },
      previous_rest_url: { type: 'string', description: 'Omitted on the first page' },
      total: { type: 'integer' },
      total_pages: { type: 'integer' },
    },
    required: [collection, 'rest_url', 'total', 'total_pages'],
  };
}

const totalHeaders = Object.fromEntries(
  ['X-TEC-Total', 'X-TEC-TotalPages', 'X-WP-Total', 'X-WP-TotalPages'].map((name) => [
    name,
    { schema: { type: 'integer' } },
  ]),
);

const fieldSchema = (field: z.ZodType): JsonSchema =>
  z.toJSONSchema(field, { target: 'openapi-3.0', io: 'output', unrepresentable: 'any' }) as JsonSchema;
const isRequired = (field: z.ZodType) => !field.safeParse(undefined).success;

/** WordPress-style argument description of one field. */
function describeArg(field: z.ZodType) {
  const json = fieldSchema(field);
  const arg: Record<string, unknown> = { required: isRequired(field) };
  if (json.default !== undefined) arg.default = json.default;
  if (json.description !== undefined) arg.description = json.description;
  if (json.type !== undefined) arg.type = json.type;
  if (json.items !== undefined) arg.items = json.items;
  if (json.enum !== undefined) arg.enum = json.enum;
  return arg;
}

export function rootDescription(base: string, namespace: string) {
  const routes: Record<string, unknown> = {};
  for (const spec of routeSpecs) {
    const route = `/${namespace}${spec.route}`;
    routes[route] = {
      namespace,
      methods: spec.endpoints.flatMap((e) => e.methods),
      endpoints: spec.endpoints.map((endpoint) => ({
        methods: endpoint.methods,
        args: Object.fromEntries(
          Object.entries(endpoint.args.shape).map(([name, field]) => [name, describeArg(field as z.ZodType)]),
        ),
      })),
      ...(spec.route.includes('(') ? {} : { _links: { self: [{ href: `${base}${spec.route}` }] } }),
    };
  }
  return { namespace, routes, _links: { up: [{ href: base.slice(0, base.lastIndexOf(`/${namespace}`)) }] } };
}

const components = z.registry<{ id: string }>();
components.add(s.dateDetails, { id: 'DateDetails' });
components.add(s.costDetails, { id: 'CostDetails' });
components.add(s.image, { id: 'Image' });
components.add(s.term, { id: 'Term' });
components.add(s.venue, { id: 'Venue' });
components.add(s.organizer, { id: 'Organizer' });
components.add(s.event, { id: 'Event' });

/** The OpenAPI 3.0 document, generated from the same schemas that validate requests. */
export function openApiDocument(server: string) {
  const { schemas } = z.toJSONSchema(components, {
    target: 'openapi-3.0',
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as { schemas: Record<string, JsonSchema> };
  for (const schema of Object.values(schemas)) delete schema.$id;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routeSpecs) {
    if (!spec.openapi) continue;
    const path: Record<string, unknown> = {};
    for (const endpoint of spec.endpoints) {
      for (const method of endpoint.methods) {
        const parameters: unknown[] = [];
        const body: Record<string, JsonSchema> = {};
        const required: string[] = [];
        for (const [name, field] of Object.entries(endpoint.args.shape)) {
          const json = fieldSchema(field as z.ZodType);
          const inPath = spec.openapi.includes(`{${name}}`);
          if (inPath || method === 'GET' || method === 'DELETE') {
            const { description, ...schema } = json;
            parameters.push({
              name,
              in: inPath ? 'path' : 'query',
              required: inPath || isRequired(field as z.ZodType),
              ...(description ? { description } : {}),
              schema,
            });
          } else {
            body[name] = json;
            if (isRequired(field as z.ZodType)) required.push(name);
          }
        }
        const list = method === 'GET' && !spec.openapi.includes('{') && endpoint.returns;
        const returned = endpoint.returns
          ? { $ref: `#/components/schemas/${endpoint.returns}` }
          : { type: 'object' };
        path[method.toLowerCase()] = {
          summary: endpoint.summary,
          ...(parameters.length > 0 ? { parameters } : {}),
          ...(Object.keys(body).length > 0
            ? {
                requestBody: {
                  content: {
                    'application/json': {
                      schema: { type: 'object', properties: body, ...(required.length ? { required } : {}) },
                    },
                  },
                },
              }
            : {}),
          responses: {
            [method === 'POST' && !spec.openapi.includes('{') ? '201' : '200']: {
              description: 'OK',
              ...(list ? { headers: totalHeaders } : {}),
              content: {
                'application/json': {
                  schema: list ? listEnvelope(spec.openapi.slice(1), returned) : returned,
                },
              },
            },
            '400': { description: 'Invalid or missing parameter' },
            ...(method === 'GET'
              ? {}
              : { '401': { description: 'No credentials' }, '403': { description: 'Role lacks the right' } }),
          },
        };
      }
    }
    paths[spec.openapi] = path;
  }
  return {
    openapi: '3.0.3',
    info: {
      version: '1.0.0',
      title: 'Calendar events REST API',
      description:
        'Events, venues, organizers, categories and tags; compatible with The Events Calendar REST API v1.',
    },
    servers: [{ url: server }],
    paths,
    components: { schemas },
  };
}

export function metaRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get(
    '/',
    handle(async (req, res) => {
      const query = validate(s.rootQuery, params(req));
      res.json({ ...rootDescription(restBase(siteOf(req, ctx)), NAMESPACE), namespace: query.namespace });
    }),
  );
  router.get(
    '/doc',
    handle(async (req, res) => {
      res.json(openApiDocument(restBase(siteOf(req, ctx))));
    }),
  );
  return router;
}
