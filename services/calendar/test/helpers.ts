import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from '@jest/globals';
import { createLogger, type Logger } from '@live-captions/runtime';
import { runPostgresUrl } from '@live-captions/test-services';
import knexFactory, { type Knex } from 'knex';
import supertest from 'supertest';
import { openDatabase } from '../src/adapters/db.js';
import { migrate } from '../src/adapters/migrations.js';
import { parseTokens } from '../src/adapters/tokens.js';
import { buildApp, defaultImportOptions } from '../src/app.js';
import type { ImportOptions } from '../src/routes/import.js';
import { importRefresher } from '../src/services/subscriptions.js';

const ADMIN_URL = runPostgresUrl();

export const tokens = {
  admin: 'token-admin',
  editor: 'token-editor',
  author: 'token-author',
  author2: 'token-author-2',
  contributor: 'token-contributor',
  subscriber: 'token-subscriber',
};

export const tokenFile = {
  [tokens.admin]: { user_id: 1, name: 'Ada Admin', role: 'administrator' },
  [tokens.editor]: { user_id: 2, name: 'Eddie Editor', role: 'editor' },
  [tokens.author]: { user_id: 3, name: 'Aria Author', role: 'author' },
  [tokens.author2]: { user_id: 6, name: 'Otto Author', role: 'author' },
  [tokens.contributor]: { user_id: 4, name: 'Cory Contributor', role: 'contributor' },
  [tokens.subscriber]: { user_id: 5, name: 'Sam Subscriber', role: 'subscriber' },
};

export const ROOT = '/wp-json/cal/events/v1';

export type Role = keyof typeof tokens;

/** Requests to `ROOT/<path>` carrying one role's Bearer token; a body, when given, is sent as JSON. */
export interface RoleRequests {
  get(path: string): supertest.Test;
  post(path: string, body?: object): supertest.Test;
  put(path: string, body?: object): supertest.Test;
  patch(path: string, body?: object): supertest.Test;
  delete(path: string): supertest.Test;
}

export interface TestApi {
  request: supertest.Agent;
  knex: Knex;
  /** Bearer header for a role. */
  as: (who: Role) => Record<string, string>;
  /** The API as one role: `api.by('editor').post('venues', { venue: 'Annex' })`. */
  by: (who: Role) => RoleRequests;
  /** The database's name (another app may join it: `database` of {@link TestOptions}). */
  database: string;
  /** The background re-import of subscriptions, when `importCheckMs` started one. */
  refresher?: ReturnType<typeof importRefresher>;
  close(): Promise<void>;
}

function roleRequests(request: supertest.Agent, who: Role): RoleRequests {
  const auth = { Authorization: `Bearer ${tokens[who]}` };
  const call = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: object) => {
    const test = request[method](`${ROOT}/${path}`).set(auth);
    return body === undefined ? test : test.send(body);
  };
  return {
    get: (path) => call('get', path),
    post: (path, body) => call('post', path, body),
    put: (path, body) => call('put', path, body),
    patch: (path, body) => call('patch', path, body),
    delete: (path) => call('delete', path),
  };
}

export interface TestOptions {
  timezone?: string;
  now?: () => Date;
  cacheTtlMs?: number;
  /** Admin URL of the cluster to create the database on (default: the run's private cluster). */
  adminUrl?: string;
  statementTimeoutMs?: number;
  onDatabaseState?: (state: 'down' | 'up') => void;
  logger?: Logger;
  /** Schedule import settings (allowed hosts, limits). */
  import?: Partial<ImportOptions>;
  /** Starts the subscriptions' background re-import, looking every this many ms. */
  importCheckMs?: number;
  /** Joins this existing test database (a second replica) instead of creating one. */
  database?: string;
}

/** A fresh database `cal_test_<random>` on the real PostgreSQL, migrated, and the app on it. */
export async function startTestApi(options: TestOptions = {}): Promise<TestApi> {
  const name = options.database ?? `cal_test_${randomBytes(6).toString('hex')}`;
  const adminUrl = options.adminUrl ?? ADMIN_URL;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  if (!options.database) await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({
    url: url.toString(),
    dataDir: '',
    poolSize: 4,
    statementTimeoutMs: options.statementTimeoutMs,
  });
  await migrate(db.knex);
  const app = buildApp({
    knex: db.knex,
    restRoot: '/wp-json',
    timezone: options.timezone ?? 'UTC',
    tokens: parseTokens(tokenFile),
    now: options.now,
    cacheTtlMs: options.cacheTtlMs,
    onError: (error) => console.error(error),
    onDatabaseState: options.onDatabaseState,
    import: options.import,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const tokenMap = parseTokens(tokenFile);
  const importOptions = { ...defaultImportOptions, ...options.import };
  const refresher =
    options.importCheckMs === undefined
      ? undefined
      : importRefresher(
          {
            knex: db.knex,
            timezone: options.timezone ?? 'UTC',
            tokens: tokenMap,
            now: options.now ?? (() => new Date()),
            fetchRule: importOptions,
            horizonDays: importOptions.horizonDays,
          },
          { checkMs: options.importCheckMs, logger: options.logger ?? createLogger('calendar') },
        );
  refresher?.start();
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const request = supertest.agent(server);
  return {
    request,
    knex: db.knex,
    as: (who) => ({ Authorization: `Bearer ${tokens[who]}` }),
    by: (who) => roleRequests(request, who),
    database: name,
    refresher,
    async close() {
      await refresher?.stop();
      await new Promise((resolve) => server.close(resolve));
      await db.close();
      // A joining replica leaves the database to the app that created it.
      if (!options.database) await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}

/**
 * The app of a test file: started on a fresh database before the file's tests (ahead of the
 * file's own `beforeAll`, when called first) and closed after them. Its members reach the
 * running app, so the tests keep writing `api.request`, `api.knex`.
 */
export function useTestApi(options: TestOptions = {}): TestApi {
  let started: TestApi | undefined;
  beforeAll(async () => {
    started = await startTestApi(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = () => {
    if (!started) throw new Error('the test API starts in beforeAll');
    return started;
  };
  return {
    get request() {
      return running().request;
    },
    get knex() {
      return running().knex;
    },
    as: (who) => running().as(who),
    by: (who) => running().by(who),
    get database() {
      return running().database;
    },
    get refresher() {
      return running().refresher;
    },
    close: () => running().close(),
  };
}

/** Creates an event as `who` from `defaults` overridden by `body`; expects 201, returns the event. */
export async function createEvent(
  api: TestApi,
  body: Record<string, unknown>,
  who: Role = 'admin',
  defaults: Record<string, unknown> = {},
) {
  const res = await api.by(who).post('events', { ...defaults, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

/** Wall-clock `YYYY-MM-DD HH:mm:ss` (UTC) of now + `days`, at `time`. */
export function day(days: number, time = '10:00:00', from = new Date()): string {
  const d = new Date(from.getTime() + days * 86_400_000);
  return `${d.toISOString().slice(0, 10)} ${time}`;
}

/**
 * Checks that a listing's `search` takes `%`, `_` and `\` literally: `create` makes four records
 * by name, `names(search)` answers the names the listing finds.
 */
export async function expectLiteralSearch(
  create: (name: string) => PromiseLike<unknown>,
  names: (search: string) => Promise<string[]>,
): Promise<void> {
  for (const name of ['Score_Board', '100% Fun', 'Back\\slash', 'Plain Name']) await create(name);
  expect(await names('_')).toEqual(['Score_Board']);
  expect(await names('%')).toEqual(['100% Fun']);
  expect(await names('\\')).toEqual(['Back\\slash']);
  expect(await names('score_b')).toEqual(['Score_Board']);
}
