/**
 * The relay's caption rooms API (`GET /rooms`, `GET /rooms/:id`) as the services call it with the
 * service access token. Node only (it sends the token; a browser never holds it).
 */
import { type CaptionRoom, type CaptionRoomList, relayHttpUrl } from '@live-captions/protocol';

/** How long one call to the relay may take before it counts as unreachable. */
const TIMEOUT_MS = 5000;

export { relayHttpUrl };

/** Why the rooms API gave no rooms; `message` never holds a token. */
export type RoomsApiProblem = 'unreachable' | 'no-api' | 'unauthorized' | 'bad-answer';

export class RoomsApiError extends Error {
  constructor(
    readonly problem: RoomsApiProblem,
    message: string,
  ) {
    super(message);
    this.name = 'RoomsApiError';
  }
}

async function call(base: string, path: string, apiKey: string | undefined, headers: Record<string, string>) {
  try {
    return await fetch(`${base}${path}`, {
      headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new RoomsApiError('unreachable', `relay unreachable at ${base} (${cause})`);
  }
}

async function refusal(response: Response, base: string): Promise<RoomsApiError> {
  if (!response.bodyUsed) await response.body?.cancel();
  if (response.status === 401 || response.status === 403)
    return new RoomsApiError(
      'unauthorized',
      `relay at ${base} refused the service access token (CAPTION_API_KEY)`,
    );
  if (response.status === 404)
    return new RoomsApiError(
      'no-api',
      `relay at ${base} has no rooms API (no RELAY_DATA_DIR or DATABASE_URL)`,
    );
  if (response.status >= 500)
    return new RoomsApiError('unreachable', `relay at ${base} answered ${response.status}`);
  return new RoomsApiError('bad-answer', `relay at ${base} answered ${response.status}`);
}

const isRoom = (value: unknown): value is CaptionRoom => {
  const room = value as CaptionRoom | null;
  return (
    typeof room?.id === 'string' &&
    typeof room.sourceRoom === 'string' &&
    typeof room.outputRoom === 'string' &&
    ['sourceRead', 'sourceWrite', 'outputRead', 'outputWrite'].every(
      (key) => typeof room.tokens?.[key as keyof CaptionRoom['tokens']] === 'string',
    )
  );
};

/**
 * `GET /rooms`; with `etag`, undefined when nothing changed (304). Throws a RoomsApiError.
 */
export async function fetchCaptionRooms(
  base: string,
  apiKey: string | undefined,
  etag?: string,
): Promise<{ list: CaptionRoomList; etag: string | undefined } | undefined> {
  const response = await call(base, '/rooms', apiKey, etag ? { 'if-none-match': etag } : {});
  if (response.status === 304) return undefined;
  if (response.status !== 200) throw await refusal(response, base);
  const body = (await response.json().catch(() => undefined)) as CaptionRoomList | undefined;
  if (!Array.isArray(body?.rooms) || !body.rooms.every(isRoom))
    throw new RoomsApiError('bad-answer', `relay at ${base} answered /rooms with an unexpected body`);
  return { list: body, etag: response.headers.get('etag') ?? undefined };
}

/** `GET /rooms/:id`: the room, or undefined when the relay has no such room. Throws a RoomsApiError. */
export async function fetchCaptionRoom(
  base: string,
  apiKey: string | undefined,
  id: string,
): Promise<CaptionRoom | undefined> {
  const response = await call(base, `/rooms/${encodeURIComponent(id)}`, apiKey, {});
  // An unknown room is `not_found`; a relay without rooms answers NO_ROOMS_STORE (or, older,
  // plain text).
  if (response.status === 404) {
    const body = (await response.json().catch(() => undefined)) as { error?: { code?: unknown } } | undefined;
    if (body?.error?.code === 'not_found') return undefined;
    throw await refusal(response, base);
  }
  if (response.status !== 200) throw await refusal(response, base);
  const body = (await response.json().catch(() => undefined)) as { room?: unknown } | undefined;
  if (!isRoom(body?.room))
    throw new RoomsApiError('bad-answer', `relay at ${base} answered /rooms/${id} with an unexpected body`);
  return body.room;
}
