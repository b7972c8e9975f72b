import type { z } from 'zod';
import { invalidParams, missingParams } from './errors.js';

/**
 * Validates `input` against `schema`: missing required fields give 400
 * `rest_missing_callback_param`, wrong ones 400 `rest_invalid_param` naming each field and why.
 * Unknown fields (read-only ones included) are dropped.
 */
export function validate<S extends z.ZodObject>(schema: S, input: Record<string, unknown>): z.infer<S> {
  const withNul = Object.keys(schema.shape).filter((name) => hasNul(input[name]));
  if (withNul.length > 0) {
    throw invalidParams(
      Object.fromEntries(withNul.map((name) => [name, `${name} must not contain NUL characters.`])),
    );
  }
  const missing = Object.entries(schema.shape)
    .filter(([name, field]) => isMissing(input[name]) && !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
  if (missing.length > 0) throw missingParams(missing);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const params: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? 'body');
    // A value inside an object field names itself (`captions[transcripts][0][vtt] must be ...`).
    const text = issue.message.startsWith(`${name}[`)
      ? issue.message
      : `${name} ${issue.message.startsWith('Invalid') ? 'is invalid' : issue.message}`;
    params[name] ??= `${text}.`;
  }
  throw invalidParams(params);
}

const isMissing = (value: unknown) => value === undefined || value === null;

/** PostgreSQL text cannot hold U+0000: refuse it here rather than fail the query. */
function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 8 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, inner]) => key.includes('\u0000') || hasNul(inner, depth + 1));
}
