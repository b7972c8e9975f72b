/**
 * A service's schema as knex migrations kept in code (not files), so that the built service and
 * the tests run the same list: applied in name order (`0001_…`), their state in the service's own
 * table. Never edit a migration that has shipped: add one.
 */
import type { Knex } from 'knex';

/** Where knex finds `migrations` and keeps their state (`table`); a test may step through them. */
export function codeMigrations(
  table: string,
  migrations: Record<string, Knex.Migration>,
): Knex.MigratorConfig {
  const names = Object.keys(migrations).sort();
  return {
    tableName: table,
    migrationSource: {
      getMigrations: async () => names,
      getMigrationName: (name: string) => name,
      getMigration: async (name: string) => migrations[name]!,
    },
  };
}

/** Applies the pending migrations; the names of those that ran. Concurrent replicas wait on knex's lock. */
export async function migrateLatest(knex: Knex, config: Knex.MigratorConfig): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest(config)) as [number, string[]];
  return applied;
}
