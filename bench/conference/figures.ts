// What one level of the conference bench measured, per room and in all, and how a room's
// arrivals become its figures.
import type { RelayCaption } from '@live-captions/protocol';
import { percentile } from '../lib/stats.js';
import { type Clip, SILENCE_S } from './clip.js';
import type { Arrival, BenchRoom } from './rooms.js';

export const isOriginal = (c: RelayCaption) => 'final' in c && c.final !== undefined && c.label === undefined;
export const isGap = (c: RelayCaption) => 'final' in c && c.label === 'gap';
export const isSpanish = (c: RelayCaption) => 'final' in c && c.label === 'translation' && c.ln === 'es';
export const s2 = (ms: number[], p: number) => (ms.length ? (percentile(ms, p) / 1000).toFixed(2) : '-');
export const ms = (values: number[], p: number) => (values.length ? percentile(values, p).toFixed(0) : '-');
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

export interface RoomFigures {
  id: string;
  kind: 'rtmp' | 'hls';
  behind: number[];
  notLive: number;
  /** The source's last state and reason. */
  state: string;
  gaps: string[];
  originals: number;
  /** End of speech -> the loop's last original at the output reader, ms. */
  latencies: number[];
  missed: number;
  /** Source room -> output room (the forwarder's hop through the relay), ms. */
  hops: number[];
  /** Original -> its first Spanish translation at the reader, ms. */
  translations: number[];
}

export interface LevelFigures {
  rooms: number;
  load: string;
  /** CPU seconds per service over the measured stretch, and memory (PSS, MiB) at its end. */
  cpu: Record<string, number>;
  memory: Record<string, number>;
  perRoom: RoomFigures[];
  rejected: number;
  queueTimeouts: number;
  /** The measured stretch, s. */
  seconds: number;
  /** The gateway's /health `backlog_seconds` at the end of the stretch (its largest stream backlog). */
  backlog: number;
  /** The rooms board's rule, looking every 5 s: how many looks said "bottleneck", and the first, s. */
  board: { looks: number; said: number; firstS: number | null };
  /** The first gap marker (a room skipping to the live edge) of the stretch, s; null: none. */
  firstGapS: number | null;
  kept: boolean;
}

export function roomFigures(
  room: BenchRoom,
  clip: Clip,
  from: number,
  to: number,
  behind: number[],
  notLive: number,
  state: string,
): RoomFigures {
  const during = (a: Arrival) => a.at >= from && a.at <= to;
  const originals = room.output.filter((a) => isOriginal(a.caption) && during(a));
  // Per loop of the clip whose end of speech fell in the stretch: its last original caption.
  const latencies: number[] = [];
  let missed = 0;
  const origin = room.publisher.origin();
  const loopMs = clip.period * 1000;
  if (origin !== undefined) {
    for (let k = 0; ; k++) {
      const end = origin + k * loopMs + clip.speechEnd * 1000;
      if (end < from) continue;
      if (end + SILENCE_S * 1000 > to) break;
      const mine = room.output.filter(
        (a) => isOriginal(a.caption) && a.at > end && a.at <= end + SILENCE_S * 1000 + 1000,
      );
      if (mine.length === 0) missed += 1;
      else latencies.push(Math.max(...mine.map((a) => a.at)) - end);
    }
  }
  const firstAt = (arrivals: Arrival[], keep: (c: RelayCaption) => boolean) => {
    const at = new Map<string, number>();
    for (const a of arrivals)
      if (keep(a.caption) && !at.has(String(a.caption.id))) at.set(String(a.caption.id), a.at);
    return at;
  };
  const sourceAt = firstAt(room.source, isOriginal);
  const spanishAt = firstAt(room.output, isSpanish);
  const hops: number[] = [];
  const translations: number[] = [];
  for (const a of originals) {
    const id = String(a.caption.id);
    const s = sourceAt.get(id);
    if (s !== undefined && a.at - s >= 0) hops.push(a.at - s);
    const t = spanishAt.get(id);
    if (t !== undefined) translations.push(t - a.at);
  }
  return {
    id: room.room.id,
    kind: room.kind,
    behind,
    notLive,
    state,
    gaps: room.source.filter((a) => isGap(a.caption) && during(a)).map((a) => String(a.caption.final)),
    originals: originals.length,
    latencies,
    missed,
    hops,
    translations,
  };
}
