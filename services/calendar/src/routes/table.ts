import { z } from 'zod';
import * as s from '../domain/schemas.js';

/*
 * THE route table: every route of the API with its methods, the operation that answers it and
 * the schema that validates it. It feeds the express router (router.ts), the root description
 * and /doc (meta.ts) and the Allow header (allow.ts): a route exists once.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Endpoint {
  /** The handler's name (`events.read`): route modules answer operations, not paths. */
  operation: string;
  methods: Method[];
  args: z.ZodObject;
  summary: string;
  /** Component answered, for /doc. */
  returns?: string;
}

export interface RouteSpec {
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
  /** Read, trash and update of one item, the item named by `key` (id or slug) in `route`. */
  const oneItem = (
    route: string,
    openapi: string,
    key: (schema: z.ZodObject) => z.ZodObject,
    updateArgs: z.ZodObject,
    by: string,
  ): RouteSpec => ({
    route,
    openapi,
    endpoints: [
      {
        operation: `${path}.read`,
        methods: ['GET'],
        args: key(read),
        summary: `Returns one ${noun}${by}`,
        returns: component,
      },
      {
        operation: `${path}.trash`,
        methods: ['DELETE'],
        args: key(read),
        summary: `Moves one ${noun} to the trash`,
        returns: component,
      },
      {
        operation: `${path}.update`,
        methods: writes,
        args: updateArgs,
        summary: `Updates one ${noun}${by}`,
        returns: component,
      },
    ],
  });
  return [
    oneItem(`/${path}/(?P<id>\\d+)`, `/${path}/{id}`, withId, withId(update), ''),
    oneItem(
      `/${path}/by-slug/(?P<slug>[^/]+)`,
      `/${path}/by-slug/{slug}`,
      withSlug,
      path === 'events' ? optionalSlug(update) : withPathSlug(update),
      ' by slug',
    ),
  ];
}

function termRoutes(path: string, noun: string, write: z.ZodObject): RouteSpec[] {
  return [
    {
      route: `/${path}`,
      openapi: `/${path}`,
      endpoints: [
        {
          operation: `${path}.list`,
          methods: ['GET'],
          args: s.termListQuery,
          summary: `Lists event ${noun}s`,
          returns: 'Term',
        },
        {
          operation: `${path}.create`,
          methods: ['POST'],
          args: write,
          summary: `Creates an event ${noun}`,
          returns: 'Term',
        },
      ],
    },
    {
      route: `/${path}/(?P<id>\\d+)`,
      openapi: `/${path}/{id}`,
      endpoints: [
        {
          operation: `${path}.read`,
          methods: ['GET'],
          args: s.idParam,
          summary: `Returns one event ${noun}`,
          returns: 'Term',
        },
        {
          operation: `${path}.update`,
          methods: writes,
          args: withId(write.partial()),
          summary: `Updates one event ${noun}`,
          returns: 'Term',
        },
        {
          operation: `${path}.delete`,
          methods: ['DELETE'],
          args: s.idParam,
          summary: `Deletes one event ${noun}`,
          returns: 'Term',
        },
      ],
    },
  ];
}

/** Every route of the API, with the schemas that validate it. */
export const routeSpecs: RouteSpec[] = [
  {
    route: '',
    endpoints: [
      { operation: 'root.describe', methods: ['GET'], args: s.rootQuery, summary: 'Describes the namespace' },
    ],
  },
  {
    route: '/doc',
    openapi: '/doc',
    endpoints: [{ operation: 'root.doc', methods: ['GET'], args: z.object({}), summary: 'OpenAPI document' }],
  },
  {
    route: '/events',
    openapi: '/events',
    endpoints: [
      {
        operation: 'events.list',
        methods: ['GET'],
        args: s.eventListQuery,
        summary: 'Lists events',
        returns: 'Event',
      },
      {
        operation: 'events.create',
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
            operation: `${noun}s.list`,
            methods: ['GET'] as Method[],
            args: s.linkedListQuery,
            summary: `Lists ${noun}s`,
            returns: component,
          },
          {
            operation: `${noun}s.create`,
            methods: ['POST'] as Method[],
            args: write,
            summary: `Creates a ${noun}`,
            returns: component,
          },
        ],
      },
      ...itemRoutes(`${noun}s`, noun, write, component, false),
    ];
  }),
  ...termRoutes('categories', 'category', s.categoryWrite),
  ...termRoutes('tags', 'tag', s.tagWrite),
];
