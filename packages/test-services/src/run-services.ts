/**
 * The servers of the current test run, started by the root jest global setup
 * (`jest.global-setup.mjs`). Reading them through here instead of defaulting to 6379 / 5432
 * keeps a suite run on its own from silently using the machine's shared servers.
 */
function fromRun(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(
      `${name} is not set: run the tests through the root jest config (pnpm test), which starts private servers`,
    );
  return value;
}

/** `redis://127.0.0.1:<port>` of the run's private Redis (shared by its suites: use unique key prefixes). */
export const runRedisUrl = (): string => fromRun('REDIS_URL');

/** Admin URL (database `postgres`) of the run's private PostgreSQL cluster: create a database per suite. */
export const runPostgresUrl = (): string => fromRun('TEST_PG_URL');
