import type { z } from 'zod';
import { invalidParams, missingParams } from './errors.js';

/**
 * Validates `input` against `schema`: missing required fields give 400
 * `rest_missing_callback_param`, wrong ones 400 `rest_invalid_param` naming each field and why.
 * Unknown fields (read-only ones included) are dropped.
 */
export function validate<S extends z.ZodObject>(schema: S, input: Record<string, unknown>): z.infer<S> {
  const missing = Object.entries(schema.shape)
    .filter(([name, field]) => isMissing(input[name]) && !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
  if (missing.length > 0) throw missingParams(missing);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const params: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const name = String(issue.path[0] ?? 'body');
    params[name] ??= `${name} ${issue.message.startsWith('Invalid') ? 'is invalid' : issue.message}.`;
  }
  throw invalidParams(params);
}

const isMissing = (value: unknown) => value === undefined || value === null;
