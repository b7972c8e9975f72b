// One private Redis and one private PostgreSQL cluster for the whole run, on free loopback ports:
// the suites never touch the machine's 6379 / 5432 or whatever else runs there. Their addresses
// reach every test worker through the environment (workers start after this runs).
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const services = await tsImport('./packages/test-services/src/index.ts', import.meta.url);
  const { PROGRAMS, reapOrphanClusters, requirePrograms, startPostgresCluster, startRedisServer } = services;
  requirePrograms([
    PROGRAMS.redis,
    PROGRAMS.postgres,
    PROGRAMS.chromium,
    PROGRAMS.dockerCompose,
    PROGRAMS.obs,
    PROGRAMS.xvfb,
    PROGRAMS.nginx,
    PROGRAMS.nginxRtmp,
    PROGRAMS.ffmpeg,
    PROGRAMS.apertium,
    PROGRAMS.apertiumEngSpa,
    PROGRAMS.apertiumEngCat,
  ]);

  await reapOrphanClusters();
  const [redis, postgres] = await Promise.all([startRedisServer(), startPostgresCluster()]);
  globalThis.__testServices = { redis, postgres };
  process.env.REDIS_URL = redis.url;
  process.env.TEST_PG_URL = postgres.url('postgres');
}
