import { z } from 'zod';
import { hasUrlCredentials, isSecretVar } from './secret-vars.js';

/** Thrown when the environment does not validate; `issues` has one line per wrong variable. */
export class ConfigError extends Error {
  constructor(
    readonly issues: string[],
    heading = 'Invalid configuration',
  ) {
    super(`${heading}:\n${issues.map((line) => `  - ${line}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * One line of a ConfigError: `NAME="value": message`, or `NAME: message` when the value may hold
 * a secret (`secret`, or credentials in a URL) or is unknown.
 */
export function issueLine(name: string, value: string | undefined, message: string, secret = false): string {
  if (value === undefined || secret || hasUrlCredentials(value)) return `${name}: ${message}`;
  return `${name}=${JSON.stringify(value)}: ${message}`;
}

/**
 * Validates `env` against a zod object whose keys are variable names. Empty strings count as
 * unset, as in shell `VAR=` lines of env files. Values of variables marked with `secretVar` are
 * never shown in the errors.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const key = issue.path[0];
      if (typeof key !== 'string') return `${name}: ${issue.message}`;
      return issueLine(name, input[key], issue.message, isSecretVar(schema.shape[key] as z.ZodType));
    }),
  );
}

/**
 * Like parseEnv, but adds the issues to `issues` and returns undefined instead of throwing, for
 * loaders that run checks of their own (values that must never be echoed, cross-variable rules)
 * and report everything in one ConfigError.
 */
export function parseEnvInto<S extends z.ZodObject>(
  issues: string[],
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> | undefined {
  return collectIssues(issues, () => parseEnv(schema, env));
}

/** `read()`, or undefined with its ConfigError's issues added to `issues`. */
function collectIssues<T>(issues: string[], read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    issues.push(...error.issues);
    return undefined;
  }
}

/** Integer variable within [min, max]. */
export const intVar = (min: number, max: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int({ message: 'must be a whole number' })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

/** Decimal number variable within [min, max]. */
export const numberVar = (min: number, max: number) =>
  z.coerce
    .number({ message: 'must be a number' })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

/** `1/true/yes/on` or `0/false/no/off`. */
export const flagVar = () =>
  z
    .string()
    .toLowerCase()
    .refine((v) => ['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off'].includes(v), {
      message: 'must be 1/0, true/false, yes/no or on/off',
    })
    .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));

export const portVar = () => intVar(0, 65535);

/** A prefix of a service's Redis keys, so that several deployments can share one Redis. */
export const redisPrefixVar = () =>
  z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must be 1-64 letters, digits, ., _, : or -' });

/** The caption relay's WebSocket address, as its publishers and readers dial it. */
export const relayUrlVar = () =>
  z
    .string()
    .regex(/^wss?:\/\/[^/?#@]+(\/[^?#]*)?$/, { message: 'must be a ws:// or wss:// URL without query' });

/**
 * Runs every config reader before failing, so one start-up names all the mistakes (each reader
 * may throw a ConfigError).
 */
export function readAll<T extends unknown[]>(...readers: { [K in keyof T]: () => T[K] }): T {
  const issues: string[] = [];
  const values = readers.map((read) => collectIssues(issues, read));
  if (issues.length > 0) throw new ConfigError(issues);
  return values as T;
}
