import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { roles, type User } from '../domain/auth.js';

const tokenFile = z.record(
  z.string().min(1),
  z.object({ user_id: z.number().int().min(1), name: z.string().default(''), role: z.enum(roles) }),
);

/** Bearer token -> user, from CALENDAR_TOKENS_FILE (`{"<token>": {user_id, name, role}}`). */
export type Tokens = Map<string, User>;

export function parseTokens(json: unknown): Tokens {
  const parsed = tokenFile.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `tokens file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return new Map(
    Object.entries(parsed.data).map(([token, u]) => [token, { id: u.user_id, name: u.name, role: u.role }]),
  );
}

export function readTokens(path: string | undefined): Tokens {
  if (!path) return new Map();
  return parseTokens(JSON.parse(readFileSync(path, 'utf8')));
}
