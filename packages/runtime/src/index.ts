export { CheckLoop } from './check-loop.js';
export { logLevel } from './config.js';
export {
  ConfigError,
  flagVar,
  intVar,
  issueLine,
  numberVar,
  parseEnv,
  parseEnvInto,
  portVar,
  readAll,
  redisPrefixVar,
  relayUrlVar,
} from './env.js';
export { parseEnvFile, readEnvFile, withCaptionLocalEnv } from './env-file.js';
export { createLogger, type Logger } from './logger.js';
export { hasUrlCredentials, isSecretVar, postgresUrlVar, redisUrlVar, secretVar } from './secret-vars.js';
export {
  closeServer,
  KEEP_ALIVE_MS,
  listening,
  reloadOnHangup,
  runService,
  stopOnSignals,
} from './service.js';
export { type FollowedRooms, Supervision, superviseRooms } from './supervision.js';
