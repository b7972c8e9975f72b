/**
 * Variables whose values must never appear in a configuration error: a wrong value is named, not
 * shown, when its variable is marked secret or when the value carries URL credentials.
 */
import { z } from 'zod';

const secretSchemas = new WeakSet<z.ZodType>();

/** Marks a variable's schema as secret (tokens, keys, passwords, URLs that may hold them). */
export function secretVar<S extends z.ZodType>(schema: S): S {
  secretSchemas.add(schema);
  return schema;
}

/** Whether `schema`, or the schema it wraps (`.optional()`, `.default()`, a transform), is secret. */
export function isSecretVar(schema: z.ZodType | undefined): boolean {
  let current: z.ZodType | undefined = schema;
  while (current !== undefined) {
    if (secretSchemas.has(current)) return true;
    const def = current._zod.def as { innerType?: z.ZodType; in?: z.ZodType };
    current = def.innerType ?? def.in;
  }
  return false;
}

/** `scheme://user:password@host`: a value that holds credentials whatever its variable. */
export function hasUrlCredentials(value: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*@/.test(value);
}

function urlWithScheme(value: string, schemes: readonly string[]): boolean {
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * REDIS_URL: `redis://` or `rediss://` with a host; secret (it may carry a password).
 * `required`: the message when unset; without it, use `.optional()`.
 */
export const redisUrlVar = (required?: string) =>
  secretVar(
    z
      .string(required === undefined ? undefined : { message: required })
      .refine((value) => urlWithScheme(value, ['redis:', 'rediss:']), {
        message: 'must be a redis:// or rediss:// URL',
      }),
  );

/** DATABASE_URL: `postgres://` or `postgresql://` with a host; secret (it carries the password). */
export const postgresUrlVar = () =>
  secretVar(
    z.string().refine((value) => urlWithScheme(value, ['postgres:', 'postgresql:']), {
      message: 'must be a postgres:// URL',
    }),
  );
