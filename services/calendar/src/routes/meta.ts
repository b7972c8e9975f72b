import { z } from 'zod';
import { restBase } from '../domain/render.js';
import * as s from '../domain/schemas.js';
import { validate } from '../domain/validate.js';
import { type AppContext, type Handlers, handle, NAMESPACE, params, siteOf } from './context.js';
import { routeSpecs } from './table.js';

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
  return {
    namespace,
    routes,
    _links: { up: [{ href: `${base.slice(0, base.lastIndexOf(`/${namespace}`))}/` }] },
  };
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

/** The root description and /doc, by operation of the route table. */
export function metaHandlers(ctx: AppContext): Handlers {
  return {
    'root.describe': handle(async (req, res) => {
      const query = validate(s.rootQuery, params(req));
      res.json({ ...rootDescription(restBase(siteOf(req, ctx)), NAMESPACE), namespace: query.namespace });
    }),
    'root.doc': handle(async (req, res) => {
      res.json(openApiDocument(restBase(siteOf(req, ctx))));
    }),
  };
}
