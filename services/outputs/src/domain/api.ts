/**
 * The HTTP API's request bodies, checked with zod, and its errors; the answers' shapes are the
 * protocol's (`Destination`, `ArchiveSession`), which the editor page reads.
 */
import type { DestinationKind } from '@live-captions/protocol';
import { z } from 'zod';

const url = z.string({ message: 'url: must be a string' }).max(4096, { message: 'url: too long' });
const lang = z
  .string()
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: 'lang: must be a language tag like en-US' });

export const newDestinationSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('youtube'), url }),
    z.strictObject({ kind: z.literal('zoom'), url, lang: lang.default('en-US') }),
    z.strictObject({ kind: z.literal('archive') }),
  ],
  { message: 'kind: must be youtube, zoom or archive' },
);
/** What a checked body holds: the protocol's `NewDestination` with Zoom's language filled in. */
export type CheckedNewDestination = z.infer<typeof newDestinationSchema>;

/** One message naming the field, for a 400. */
export function bodyProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid body';
  if (issue.code === 'unrecognized_keys') return `${issue.keys[0]}: unknown field`;
  const field = issue.path.join('.');
  return issue.message.includes(':') || !field ? issue.message : `${field}: ${issue.message}`;
}

export const LABELS: Record<DestinationKind, string> = {
  youtube: 'YouTube Live',
  zoom: 'Zoom',
  archive: 'Transcript archive',
};

/** Error codes of the `{error:{message, code}}` body. */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'destination_not_allowed'
  | 'unavailable'
  | 'internal';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
