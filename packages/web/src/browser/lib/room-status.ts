/**
 * A caption room's status at a glance on the links hub's board (pure): what feeds its source room
 * (a capture page, or each stream source's state), how far behind live, captions of the last
 * minute, the audience's readers and languages, destinations and translations, and the reasons it
 * needs attention. Each part comes from a service the site may lack or that may not answer: such
 * a part reads "unknown" and never counts as trouble (a missing answer is not a failing room).
 */
import type { Destination, RelayRoomActivity, StreamSource, Translation } from '@live-captions/protocol';

/** Seconds behind live beyond which a source needs attention (the issue's "more than 10 s"). */
export const TROUBLE_BEHIND_SECONDS = 10;
/** A joined publisher without a caption this long, or a stream source silent this long. */
export const TROUBLE_SILENT_MS = 2 * 60_000;
/** How many words of a destination's last error the board shows (the editor has the rest). */
const ERROR_WORDS = 8;

export interface RoomOutputs {
  destinations: Destination[];
  translations: Translation[];
}

/** What the board knows of one room; `undefined` for a part whose service did not answer. */
export interface RoomStatusInput {
  activity: { source: RelayRoomActivity; output: RelayRoomActivity } | undefined;
  /** The stream sources feeding this room's source room. */
  sources: StreamSource[] | undefined;
  outputs: RoomOutputs | undefined;
  /** Since when (ms) the board has seen a publisher joined without a break (PublisherWatch). */
  publisherSince: number | undefined;
  now: number;
}

export interface RoomStatus {
  /** "Capture page connected", "Hall camera: live, 2.1 s behind", "No source", "Source unknown". */
  source: string;
  /** "12 captions in the last minute". */
  captions: string;
  /** "3 readers · en, es". */
  audience: string;
  /** "YouTube Live: sending · es: translating", "No destinations". */
  outputs: string;
  /** Why the room needs attention, in words; empty when it does not. */
  trouble: string[];
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min`;

/** The first few words of an error message: enough to tell a 403 from a timeout on the board. */
export function firstWords(message: string, words = ERROR_WORDS): string {
  const all = message.trim().split(/\s+/);
  return all.length > words ? `${all.slice(0, words).join(' ')}…` : all.join(' ');
}

function sourcePart(input: RoomStatusInput, trouble: string[]): string {
  const { activity, sources, now } = input;
  const publishers = activity?.source.publishers;
  const running = sources?.filter((source) => source.running) ?? [];
  const parts: string[] = [];
  for (const source of running) {
    const since = source.since ? now - Date.parse(source.since) : 0;
    const behind = source.state === 'live' || source.state === 'silent';
    let line = `${source.name}: ${source.state}`;
    if (behind) line += `, ${source.behindSeconds.toFixed(1)} s behind`;
    parts.push(line);
    if (source.state === 'failed')
      trouble.push(`${source.name} failed${source.reason ? `: ${firstWords(source.reason)}` : ''}`);
    else if (source.state === 'silent' && since > TROUBLE_SILENT_MS)
      trouble.push(`${source.name} silent for ${minutes(since)}`);
    if (behind && source.behindSeconds > TROUBLE_BEHIND_SECONDS)
      trouble.push(`${source.name} ${Math.round(source.behindSeconds)} s behind live`);
  }
  if (publishers !== undefined && publishers >= 2)
    // Two writers interleave their captions in one room: the issue's "two publishers at once".
    trouble.push(`${publishers} publishers at once`);
  if (parts.length > 0) return parts.join(' · ');
  if (publishers === undefined) return sources ? 'Source unknown (relay)' : 'Source unknown';
  if (publishers === 0) return 'No source connected';
  // The relay counts joined writers; with no stream source running they are capture pages.
  if (sources) return publishers === 1 ? 'Capture page connected' : `${publishers} capture pages connected`;
  return `${plural(publishers, 'publisher')} connected (stream sources unknown)`;
}

function silence(input: RoomStatusInput, trouble: string[]): void {
  const source = input.activity?.source;
  if (!source || source.publishers < 1 || input.publisherSince === undefined) return;
  const last = source.lastCaptionAt ? Date.parse(source.lastCaptionAt) : Number.NEGATIVE_INFINITY;
  // Counted from the later of the last caption and the publisher's arrival: a page that just
  // joined is not silent yet.
  const quiet = input.now - Math.max(last, input.publisherSince);
  if (quiet > TROUBLE_SILENT_MS) trouble.push(`no caption for ${minutes(quiet)} while a publisher is joined`);
}

function outputsPart(outputs: RoomOutputs | undefined, trouble: string[]): string {
  if (!outputs) return 'Destinations unknown';
  const parts: string[] = [];
  for (const destination of outputs.destinations) {
    // The original is what a destination takes by default: only a translation track is named.
    const track = destination.track && destination.track !== 'original' ? destination.track : undefined;
    const name = track ? `${destination.label} (${track})` : destination.label;
    parts.push(`${name}: ${destination.state}`);
    if (destination.state === 'failing')
      trouble.push(
        `${name} failing${destination.lastError ? `: ${firstWords(destination.lastError.message)}` : ''}`,
      );
  }
  for (const translation of outputs.translations) {
    parts.push(`${translation.target}: ${translation.state}`);
    if (translation.state === 'failing')
      trouble.push(
        `translation ${translation.target} failing${
          translation.lastError ? `: ${firstWords(translation.lastError.message)}` : ''
        }`,
      );
  }
  return parts.length > 0 ? parts.join(' · ') : 'No destinations';
}

/** The room's status line parts and its trouble, from whatever the services answered. */
export function roomStatus(input: RoomStatusInput): RoomStatus {
  const trouble: string[] = [];
  const source = sourcePart(input, trouble);
  silence(input, trouble);
  const activity = input.activity;
  const captions = activity
    ? `${plural(activity.source.captionsLastMinute, 'caption')} in the last minute`
    : 'Captions unknown';
  const languages = activity?.output.languages.join(', ');
  const audience = activity
    ? `${plural(activity.output.readers, 'reader')}${languages ? ` · ${languages}` : ''}`
    : 'Readers unknown';
  const outputs = outputsPart(input.outputs, trouble);
  return { source, captions, audience, outputs, trouble };
}

/** "Needs attention: 2 publishers at once…; Zoom failing: HTTP 403…", or '' for a quiet room. */
export function troubleLine(trouble: readonly string[]): string {
  return trouble.length > 0 ? `Needs attention: ${trouble.join('; ')}` : '';
}

/** Rooms the summary names: enough to find them among 40 without reading every row. */
const NAMED = 4;

/**
 * The board's summary line: "2 of 40 rooms need attention: Main hall, Room B", "All 40 rooms are
 * fine"; `troubled` are the names of the rooms in trouble, in the board's order.
 */
export function boardSummary(rooms: number, troubled: readonly string[]): string {
  if (rooms === 0) return '';
  const count = troubled.length;
  if (count === 0) return rooms === 1 ? 'The room is fine' : `All ${rooms} rooms are fine`;
  const more = count > NAMED ? ` and ${count - NAMED} more` : '';
  const names = `${troubled.slice(0, NAMED).join(', ')}${more}`;
  return `${count} of ${plural(rooms, 'room')} ${count === 1 ? 'needs' : 'need'} attention: ${names}`;
}

/**
 * Since when each room has had a publisher joined, from one board refresh to the next: the relay
 * says how many are joined, not since when, and silence is only trouble once a publisher has had
 * two minutes to speak.
 */
export class PublisherWatch {
  readonly #since = new Map<string, number>();

  /** Records `publishers` of room `id` at `now`; the time they have been joined since, if any. */
  seen(id: string, publishers: number | undefined, now: number): number | undefined {
    if (publishers === undefined) return this.#since.get(id);
    if (publishers < 1) {
      this.#since.delete(id);
      return undefined;
    }
    const since = this.#since.get(id) ?? now;
    this.#since.set(id, since);
    return since;
  }
}
