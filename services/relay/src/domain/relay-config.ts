import { parseOrigin } from '@live-captions/http';
import { RELAY_ROOM_NAME, RELAY_TOKEN } from '@live-captions/protocol';
import { ConfigError } from '@live-captions/runtime';
import type { RelayConfigFile, RoomTokens } from '@live-captions/secret-files';
import { z } from 'zod';
import { DEFAULT_LIMITS, type RelayLimits } from './limits.js';

export type { RoomTokens };

/** The relay's private configuration (`secrets/relay.private.json`), validated. */
export interface RelayConfig {
  origins: string[];
  rooms: Map<string, RoomTokens>;
  limits: RelayLimits;
}

/** Thrown for an invalid config file; `issues` has one line per wrong field, each naming it. */
export class RelayConfigError extends ConfigError {
  constructor(
    readonly source: string,
    issues: string[],
  ) {
    super(issues, `Invalid relay configuration ${source}`);
    this.name = 'RelayConfigError';
  }
}

/** An allowed origin, normalised (`https://UI.example.org/` -> `https://ui.example.org`). */
const origin = z.string().transform((value, ctx) => {
  try {
    return parseOrigin(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const token = z.string().regex(RELAY_TOKEN, { message: 'must be 32-128 characters of A-Z a-z 0-9 _ -' });

const roomTokens = z.strictObject({ read: token, write: token });

const limit = z
  .number({ message: 'must be a number' })
  .int({ message: 'must be a whole number' })
  .positive({ message: 'must be positive' });

const limitsShape = Object.fromEntries(Object.keys(DEFAULT_LIMITS).map((key) => [key, limit.optional()])) as {
  [K in keyof RelayLimits]: z.ZodOptional<typeof limit>;
};

const fileSchema = z.strictObject({
  origins: z.array(origin).min(1, { message: 'must list at least one origin' }),
  rooms: z
    .record(
      z
        .string()
        .regex(RELAY_ROOM_NAME, { message: 'room names must be 1-128 characters of A-Z a-z 0-9 _ -' }),
      roomTokens,
    )
    .refine((rooms) => Object.keys(rooms).length >= 1, { message: 'must define at least one room' })
    .refine((rooms) => Object.keys(rooms).length <= 1000, { message: 'must define at most 1000 rooms' }),
  limits: z.strictObject(limitsShape).optional(),
}) satisfies z.ZodType<RelayConfigFile>; // what `pnpm secrets:init` writes must pass

function fieldName(path: PropertyKey[]): string {
  return path.reduce<string>((name, part) => {
    if (typeof part === 'number') return `${name}[${part}]`;
    return name ? `${name}.${String(part)}` : String(part);
  }, '');
}

/** Validates a parsed config file; `source` names the file in error messages. */
export function parseRelayConfig(input: unknown, source = 'relay config'): RelayConfig {
  const result = fileSchema.safeParse(input);
  if (!result.success) {
    throw new RelayConfigError(
      source,
      result.error.issues.map((issue) => {
        if (issue.code === 'unrecognized_keys') {
          const parent = fieldName(issue.path);
          return issue.keys.map((key) => `${parent ? `${parent}.` : ''}${key}: unknown field`).join('; ');
        }
        if (issue.code === 'invalid_key')
          return `${fieldName(issue.path)}: ${issue.issues[0]?.message ?? issue.message}`;
        return `${fieldName(issue.path) || '(file)'}: ${issue.message}`;
      }),
    );
  }
  const { origins, rooms, limits } = result.data;
  const issues: string[] = [];
  const seen = new Map<string, string>();
  for (const [room, tokens] of Object.entries(rooms)) {
    for (const role of ['read', 'write'] as const) {
      const field = `rooms.${room}.${role}`;
      const other = seen.get(tokens[role]);
      if (other)
        issues.push(`${field}: must differ from ${other} (tokens are unique across rooms and roles)`);
      else seen.set(tokens[role], field);
    }
  }
  if (new Set(origins).size !== origins.length) issues.push('origins: must not repeat an origin');
  const merged: RelayLimits = { ...DEFAULT_LIMITS, ...(limits as Partial<RelayLimits> | undefined) };
  // A room must hold at least its largest caption, or that caption would leave its own history.
  if (merged.replayRoomBytes < merged.payloadBytes)
    issues.push(`limits.replayRoomBytes: must be at least payloadBytes (${merged.payloadBytes})`);
  if (issues.length > 0) throw new RelayConfigError(source, issues);
  return { origins, rooms: new Map(Object.entries(rooms)), limits: merged };
}

/** Parses the text of a config file (JSON), naming `source` in every error. */
export function parseRelayConfigText(text: string, source: string): RelayConfig {
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new RelayConfigError(source, [`(file): not valid JSON (${(error as Error).message})`]);
  }
  return parseRelayConfig(input, source);
}
