export { ConfigError, flagVar, intVar, parseEnv, parseEnvInto, portVar, readAll } from './env.js';
export { parseEnvFile, readEnvFile } from './env-file.js';
export { createLogger, type Logger } from './logger.js';
export { listening, runService, stopOnSignals } from './service.js';
