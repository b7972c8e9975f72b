import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { logLevel } from './config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout (`destination` lets tests read them). Never pass tokens, audio
 * or transcripts: the redact list is a safety net for header and field names, not a licence to
 * log payloads.
 */
export function createLogger(
  service: string,
  options: LoggerOptions = {},
  destination?: DestinationStream,
): Logger {
  const settings: LoggerOptions = {
    name: service,
    level: logLevel(),
    base: { service },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.token',
        'token',
        '*.text',
        '*.transcript',
        '*.translation',
      ],
      censor: '[redacted]',
    },
    ...options,
  };
  return destination ? pino(settings, destination) : pino(settings);
}
