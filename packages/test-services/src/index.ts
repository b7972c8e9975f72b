export { type ApertiumServer, apertiumPython, startApertium } from './apertium.js';
export { ffprobeCueCount } from './caption-probe.js';
export { DEEPL_SOURCES, DEEPL_TARGETS, type DeepLStandIn, startDeepLStandIn } from './deepl-stand-in.js';
export {
  type EngineFault,
  type EngineRequest,
  type EngineStandIn,
  standInTranslation,
} from './engine-stand-in-core.js';
export { freePort } from './free-port.js';
export {
  LIBRE_LANGUAGES,
  type LibreLanguage,
  type LibreTranslateStandIn,
  startLibreTranslateStandIn,
} from './libretranslate-stand-in.js';
export { type LogCapture, logCapture } from './log-capture.js';
export { type PostgresCluster, reapOrphanClusters, startPostgresCluster } from './postgres-cluster.js';
export { processGroupCpuSeconds } from './process-cpu.js';
export { queuedJobs } from './queued-jobs.js';
export { type RedisServer, startRedisServer } from './redis-server.js';
export { runPostgresUrl, runRedisUrl } from './run-services.js';
export { type ApiAnswer, callApi } from './service-api.js';
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
export {
  COUNCIL_MEETING,
  COUNCIL_VOCABULARY,
  captionsAsCaptured,
  captionsCutMidSentence,
  type ScriptedCaption,
  seededRandom,
} from './speech-script.js';
export type { AcceptedPost, Fault, StandIn } from './stand-in-core.js';
export { APERTIUM_MODES, PROGRAMS, postgresBinDir, requirePrograms, type SystemProgram } from './system.js';
export { errorThrown } from './thrown.js';
export { startYouTubeStandIn, type YouTubeBlock, youtubeBlocks } from './youtube-stand-in.js';
export { startZoomStandIn, type ZoomStandIn } from './zoom-stand-in.js';
