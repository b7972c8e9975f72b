/**
 * What the links hub's board asks the services each refresh, for every room's status: the relay's
 * activity, the stream sources, each room's destinations and translations (outputs service, with
 * the room's output write token, as the editor asks), and the gateway's `/health`. Each request
 * stands alone: a service that does not answer, or that the site lacks, leaves its part
 * `undefined` (shown "unknown"), never the others; except the stream sources, of which a site
 * without their service has none. Browser-safe; `fetch` is injectable.
 */
import type { CaptionRoom, CaptionRoomActivityList, StreamSource } from '@live-captions/protocol';
import { OutputsClient } from './outputs-client.js';
import type { RoomOutputs } from './room-status.js';
import { RoomsClient } from './rooms-client.js';
import { ServiceRequestError } from './service-request.js';
import { SourcesClient } from './sources-client.js';
import { isWorkersHealth, type WorkersHealth } from './workers-watch.js';

/** Outputs requests in flight at once: 40 rooms are 80 requests, not to be fired all together. */
const OUTPUTS_AT_ONCE = 6;
/**
 * Longest wait for one answer: a service that hangs reads "unknown" instead of holding up the
 * board's rounds (the next one starts only when this one is done).
 */
const ANSWER_WITHIN_MS = 8000;

export interface BoardAddresses {
  token: string;
  relayApiUrl?: string | null | undefined;
  sourcesUrl?: string | null | undefined;
  outputsUrl?: string | null | undefined;
  /** The capture host (the speech gateway's `/health`). */
  captureUrl?: string | null | undefined;
}

export interface BoardFeeds {
  activity: Map<string, CaptionRoomActivityList['rooms'][number]> | undefined;
  /** Each room's stream sources, by source room id. */
  sources: Map<string, StreamSource[]> | undefined;
  /** Rooms whose outputs answered; `undefined` when not asked this refresh. */
  outputs: Map<string, RoomOutputs> | undefined;
  workers: WorkersHealth | undefined;
}

const quietly = async <T>(work: () => Promise<T>): Promise<T | undefined> => {
  try {
    return await work();
  } catch {
    // Not configured, unreachable or refusing: that part reads "unknown".
    return undefined;
  }
};

/** The rooms' relay activity by room id. */
async function activity(to: BoardAddresses, fetcher: typeof fetch) {
  if (!to.relayApiUrl) return undefined;
  const rooms = await new RoomsClient({
    baseUrl: to.relayApiUrl,
    token: to.token,
    fetch: fetcher,
  }).activity();
  return new Map(rooms.map((room) => [room.id, room]));
}

async function sources(to: BoardAddresses, fetcher: typeof fetch) {
  // A site without a stream sources service has none: its rooms' publishers are capture pages.
  if (!to.sourcesUrl) return new Map<string, StreamSource[]>();
  const all = await new SourcesClient({ baseUrl: to.sourcesUrl, token: to.token, fetch: fetcher }).all();
  const byRoom = new Map<string, StreamSource[]>();
  for (const source of all) byRoom.set(source.room, [...(byRoom.get(source.room) ?? []), source]);
  return byRoom;
}

async function outputs(to: BoardAddresses, rooms: readonly CaptionRoom[], fetcher: typeof fetch) {
  const found = new Map<string, RoomOutputs>();
  const baseUrl = to.outputsUrl;
  if (!baseUrl) return found;
  const ask = async (room: CaptionRoom): Promise<boolean> => {
    const client = new OutputsClient({
      baseUrl,
      room: room.outputRoom,
      token: room.tokens.outputWrite,
      fetch: fetcher,
    });
    try {
      const [destinations, translations] = await Promise.all([client.destinations(), client.translations()]);
      found.set(room.id, { destinations, translations });
    } catch (error) {
      // Unreachable: the other rooms would be too (and each refusal is a console error).
      return !(error instanceof ServiceRequestError && error.status === 0);
    }
    return true;
  };
  const [first, ...queue] = rooms;
  if (!first || !(await ask(first))) return found;
  const next = async (): Promise<void> => {
    for (let room = queue.shift(); room; room = queue.shift()) await ask(room);
  };
  await Promise.all(Array.from({ length: OUTPUTS_AT_ONCE }, next));
  return found;
}

async function workers(to: BoardAddresses, fetcher: typeof fetch) {
  if (!to.captureUrl) return undefined;
  const response = await fetcher(new URL('health', to.captureUrl), {
    headers: { Authorization: `Bearer ${to.token}` },
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!response.ok) return undefined;
  const body: unknown = await response.json();
  return isWorkersHealth(body) ? body : undefined;
}

/** One refresh's answers; `withOutputs` false skips the outputs service (asked less often). */
export async function readBoardFeeds(
  to: BoardAddresses,
  rooms: readonly CaptionRoom[],
  withOutputs: boolean,
  fetcher: typeof fetch = (...args) => fetch(...args),
): Promise<BoardFeeds> {
  const timed: typeof fetch = (input, init) =>
    fetcher(input, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
  const [a, s, o, w] = await Promise.all([
    quietly(() => activity(to, timed)),
    quietly(() => sources(to, timed)),
    withOutputs ? quietly(() => outputs(to, rooms, timed)) : Promise.resolve(undefined),
    quietly(() => workers(to, timed)),
  ]);
  return { activity: a, sources: s, outputs: o, workers: w };
}
