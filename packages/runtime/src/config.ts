/**
 * The only environment this package reads: LOG_LEVEL, for the logger of every service (loggers
 * exist before a service has read its own config, to report that config's errors).
 */
import { ConfigError, issueLine } from './env.js';

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** LOG_LEVEL, or `info` (`silent` under jest, NODE_ENV=test); throws ConfigError for an unknown level. */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.LOG_LEVEL || undefined;
  if (value === undefined) return env.NODE_ENV === 'test' ? 'silent' : 'info';
  if (!(LEVELS as readonly string[]).includes(value)) {
    throw new ConfigError([issueLine('LOG_LEVEL', value, `must be one of ${LEVELS.join(', ')}`)]);
  }
  return value;
}
