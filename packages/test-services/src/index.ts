export { freePort } from './free-port.js';
export { type PostgresCluster, startPostgresCluster } from './postgres-cluster.js';
export { type RedisServer, startRedisServer } from './redis-server.js';
export { runPostgresUrl, runRedisUrl } from './run-services.js';
export { PROGRAMS, postgresBinDir, requirePrograms, type SystemProgram } from './system.js';
