/**
 * The pages' client of the relay's caption rooms API (services/relay, `/rooms`): the links hub's
 * board lists, creates, renames, rotates and removes rooms, binds them to a calendar venue and
 * holds them on or off by hand, with the service access token; the
 * public "captioning now" page reads `public/rooms`, which needs none. Browser-safe; `fetch` is
 * injectable. Every failure is a `ServiceRequestError` carrying the relay's own message.
 */
import type {
  CaptionRoom,
  CaptionRoomActivityList,
  CaptionRoomHold,
  CaptionRoomList,
  PublicCaptionRoom,
} from '@live-captions/protocol';
import { requestProblem, ServiceRequestError, serviceRequest } from './service-request.js';

const SERVICE = 'relay';

export interface RoomsClientOptions {
  /** The relay's HTTP API base, ending with `/` (`SITE_CONFIG.relayApiUrl`). */
  baseUrl: string;
  /** The service access token. */
  token: string;
  fetch?: typeof fetch;
}

export class RoomsClient {
  readonly #fetch: typeof fetch;

  constructor(private readonly options: RoomsClientOptions) {
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
  }

  /** Every caption room (the relay file's and the API's) and the list's version. */
  async list(): Promise<CaptionRoomList> {
    const body = (await (await this.#request('rooms')).json()) as Partial<CaptionRoomList>;
    return { rooms: Array.isArray(body.rooms) ? body.rooms : [], version: String(body.version ?? '') };
  }

  /** Each caption room's source and output room now: publishers, readers, captions (the board). */
  async activity(): Promise<CaptionRoomActivityList['rooms']> {
    const body = (await (await this.#request('activity/rooms')).json()) as Partial<CaptionRoomActivityList>;
    return Array.isArray(body.rooms) ? body.rooms : [];
  }

  /** A new room named `name`; its id is made from the name by the relay. */
  async create(name: string): Promise<CaptionRoom> {
    return this.#room('rooms', 'POST', { name });
  }

  /** A new name; the id, the relay rooms and so every link stay. */
  async rename(id: string, name: string): Promise<CaptionRoom> {
    return this.#room(`rooms/${encodeURIComponent(id)}`, 'PATCH', { name });
  }

  /**
   * Binds the room to a calendar venue (its sources then start a lead before each talk there and
   * stop a tail after it), or with null unbinds it: back to starting its sources by hand.
   */
  async schedule(
    id: string,
    schedule: { venue: number; leadSeconds: number; tailSeconds: number } | null,
  ): Promise<CaptionRoom> {
    return this.#room(`rooms/${encodeURIComponent(id)}`, 'PATCH', { schedule });
  }

  /** The hand: `on` or `off` wins over the calendar until set back to null (the schedule). */
  async hold(id: string, hold: CaptionRoomHold): Promise<CaptionRoom> {
    return this.#room(`rooms/${encodeURIComponent(id)}`, 'PATCH', { hold });
  }

  /** New tokens, all four: the links made with the old ones stop working. */
  async rotate(id: string): Promise<CaptionRoom> {
    return this.#room(`rooms/${encodeURIComponent(id)}/tokens`, 'POST');
  }

  async remove(id: string): Promise<void> {
    await this.#request(`rooms/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  async #room(path: string, method: string, body?: unknown): Promise<CaptionRoom> {
    const response = await this.#request(path, {
      method,
      ...(body === undefined
        ? {}
        : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return ((await response.json()) as { room: CaptionRoom }).room;
  }

  #request(path: string, init: RequestInit = {}): Promise<Response> {
    return serviceRequest(
      SERVICE,
      this.#fetch,
      new URL(path, this.options.baseUrl),
      this.options.token,
      init,
    );
  }
}

/** `GET public/rooms`: no token, no cookies; the same errors as the operator calls. */
export async function publicRooms(
  baseUrl: string,
  fetcher: typeof fetch = (...args) => fetch(...args),
): Promise<PublicCaptionRoom[]> {
  let response: Response;
  try {
    response = await fetcher(new URL('public/rooms', baseUrl), { credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ServiceRequestError(`The ${SERVICE} cannot be reached`, 0);
  }
  if (!response.ok)
    throw new ServiceRequestError(`The ${SERVICE} answered ${response.status}`, response.status);
  const body = (await response.json()) as { rooms?: PublicCaptionRoom[] };
  return Array.isArray(body.rooms) ? body.rooms : [];
}

/**
 * A panel's line for a failed rooms request: the relay's own message, except where the browser
 * hides why (no answer, or a refused cross-origin one) or a relay without a rooms store answered
 * a bare 404 (not its JSON "No room …"); those say what to check.
 */
export function roomsProblem(error: unknown, baseUrl: string): string {
  const bare = `The ${SERVICE} answered 404`;
  if (error instanceof ServiceRequestError && (error.status === 0 || error.message === bare))
    return (
      `The relay's rooms API does not answer at ${baseUrl}: is the relay started with a rooms store ` +
      '(RELAY_DATA_DIR or DATABASE_URL) and this site among its origins?'
    );
  return requestProblem(error);
}
