export { freePort } from './free-port.js';
export { type LogCapture, logCapture } from './log-capture.js';
export { type PostgresCluster, reapOrphanClusters, startPostgresCluster } from './postgres-cluster.js';
export { type RedisServer, startRedisServer } from './redis-server.js';
export { runPostgresUrl, runRedisUrl } from './run-services.js';
export {
  FROM_SOURCE,
  GATEWAY_ENTRY,
  gatewayPort,
  killAll,
  type QueueStack,
  type ServiceProcess,
  startQueueStack,
  startServiceProcess,
  WORKER_ENTRY,
} from './service-process.js';
export type { AcceptedPost, Fault, StandIn } from './stand-in-core.js';
export { PROGRAMS, postgresBinDir, requirePrograms, type SystemProgram } from './system.js';
export { errorThrown } from './thrown.js';
export { startYouTubeStandIn, type YouTubeBlock, youtubeBlocks } from './youtube-stand-in.js';
export { startZoomStandIn, type ZoomStandIn } from './zoom-stand-in.js';
