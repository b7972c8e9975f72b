/**
 * The relay rooms a service may join: the rooms of the relay's file (`relay.private.json`) and the
 * caption rooms of the relay's rooms API, followed by polling `GET /rooms` (a 304 while nothing
 * changed). A new room is known within a poll, a removed one forgotten within a poll. A relay
 * without the API, unreachable or refusing the token leaves the last rooms known in place; the
 * watch logs once per state change and keeps asking. Node only.
 */
import { type CaptionRoom, outputRoomOf, type RelayRoomTokens } from '@live-captions/protocol';
import { fetchCaptionRooms, RoomsApiError, type RoomsApiProblem, relayHttpUrl } from './rooms-api.js';
import { readRelayRooms } from './rooms-file.js';

/** What the watch logs with (pino's shape); never given a token. */
export interface RoomsWatchLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface RoomsWatchOptions {
  /** The relay's WebSocket address (RELAY_URL); its HTTP address is derived from it. */
  relayUrl: string;
  /** The service access token (CAPTION_API_KEY); undefined: the relay must trust loopback. */
  apiKey: string | undefined;
  /** The rooms of the relay's file; they win over an API room of the same name. */
  file: Map<string, RelayRoomTokens>;
  logger: RoomsWatchLogger;
  /** Default 1000 ms. */
  pollMs?: number;
}

type State = 'ok' | RoomsApiProblem;

/** The relay rooms of caption rooms: each is a source room and an output room. */
export function relayRoomsOf(rooms: CaptionRoom[]): Map<string, RelayRoomTokens> {
  const map = new Map<string, RelayRoomTokens>();
  for (const room of rooms) {
    map.set(room.sourceRoom, { read: room.tokens.sourceRead, write: room.tokens.sourceWrite });
    map.set(room.outputRoom ?? outputRoomOf(room.id), {
      read: room.tokens.outputRead,
      write: room.tokens.outputWrite,
    });
  }
  return map;
}

/** A comparable form of a rooms map: names and tokens, in name order. */
const digest = (rooms: Map<string, RelayRoomTokens>) =>
  JSON.stringify([...rooms].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export class RoomsWatch {
  private readonly base: string;
  private readonly pollMs: number;
  private file: Map<string, RelayRoomTokens>;
  private api = new Map<string, RelayRoomTokens>();
  private merged = new Map<string, RelayRoomTokens>();
  private mergedDigest = '';
  private etag: string | undefined;
  private list: readonly CaptionRoom[] = [];
  private state: State | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = true;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly options: RoomsWatchOptions) {
    this.base = relayHttpUrl(options.relayUrl);
    this.pollMs = options.pollMs ?? 1000;
    this.file = options.file;
    this.merge();
  }

  /** Every room known now: the file's, then the API's (file wins on a name clash). */
  rooms(): Map<string, RelayRoomTokens> {
    return this.merged;
  }

  /**
   * The caption rooms of the relay's API as last read (with their venue bindings and holds), the
   * file's pairs among them; kept through an outage. Empty before the first answer.
   */
  captionRooms(): readonly CaptionRoom[] {
    return this.list;
  }

  /** Called after the rooms changed (a room added, removed, or its tokens changed). */
  onChange(callback: () => void): void {
    this.listeners.push(callback);
  }

  /** The relay's file was read again (SIGHUP). */
  setFile(file: Map<string, RelayRoomTokens>): void {
    this.file = file;
    this.merge();
  }

  /**
   * A started watch over the relay's file at `configPath` (relay.private.json) and its rooms API:
   * what a service that joins rooms by itself (outputs, stream sources) runs; `reloadFile()` on
   * SIGHUP.
   */
  static async follow(
    options: Omit<RoomsWatchOptions, 'file'> & { configPath: string },
  ): Promise<RoomsWatch & { reloadFile(): void }> {
    const watch = new RoomsWatch({ ...options, file: readRelayRooms(options.configPath) });
    await watch.start();
    return Object.assign(watch, {
      reloadFile: () => watch.setFile(readRelayRooms(options.configPath)),
    });
  }

  /** Asks the relay once (a failure is logged, not thrown), then every poll interval. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
  }

  private poll(): Promise<void> {
    this.polling = this.refresh().finally(() => {
      this.polling = undefined;
      if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.pollMs);
    });
    return this.polling;
  }

  private async refresh(): Promise<void> {
    try {
      const answer = await fetchCaptionRooms(this.base, this.options.apiKey, this.etag);
      if (this.stopped) return;
      if (answer) {
        this.etag = answer.etag;
        this.api = relayRoomsOf(answer.list.rooms);
        this.list = answer.list.rooms;
      }
      this.setState('ok', undefined);
      if (answer) this.merge();
    } catch (error) {
      // The rooms known stay: an outage or a relay restarted without its store removes nothing.
      if (error instanceof RoomsApiError) this.setState(error.problem, error.message);
      else this.options.logger.warn({ err: (error as Error).message }, 'relay rooms change not applied');
    }
  }

  private setState(state: State, detail: string | undefined): void {
    if (state === this.state) return;
    this.state = state;
    const log = this.options.logger;
    if (state === 'ok')
      log.info({ relay: this.base, captionRooms: this.list.length }, 'relay rooms API read');
    else
      log.warn(
        { relay: this.base, problem: state, reason: detail, relayRooms: this.merged.size },
        'relay rooms API unavailable; keeping the rooms known',
      );
  }

  private merge(): void {
    const merged = new Map(this.file);
    for (const [name, tokens] of this.api) if (!merged.has(name)) merged.set(name, tokens);
    const next = digest(merged);
    if (next === this.mergedDigest) return;
    const added = [...merged.keys()].filter((name) => !this.merged.has(name));
    const removed = [...this.merged.keys()].filter((name) => !merged.has(name));
    const first = this.mergedDigest === '';
    this.merged = merged;
    this.mergedDigest = next;
    if (first) return;
    this.options.logger.info({ relayRooms: merged.size, added, removed }, 'relay rooms changed');
    for (const listener of this.listeners) listener();
  }
}
