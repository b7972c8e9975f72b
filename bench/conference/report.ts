// The conference bench's tables and ratios from its levels' figures.
import { percentile, table } from '../lib/stats.js';
import { type LevelFigures, mean, ms, s2 } from './figures.js';

/** The stack's services, as the tables name them. */
export const SERVICES = ['relay', 'gateway', 'sources', 'outputs', 'postgres', 'apertium'];

export function latencyTable(levels: LevelFigures[]): string {
  return table(
    [
      'rooms',
      'loops',
      'p50',
      'p95',
      'max',
      'HLS rooms p50 / p95',
      'missed',
      'worst room p95',
      'hop p95 ms',
      'es p95 ms',
      'captions/min/room',
      'gaps',
    ],
    levels.map((l) => {
      // The RTMP rooms' figures; the HLS rooms' (nginx's 1 s fragments and the playlist polls in
      // them) apart.
      const all = l.perRoom.filter((r) => r.kind === 'rtmp').flatMap((r) => r.latencies);
      const hls = l.perRoom.filter((r) => r.kind === 'hls').flatMap((r) => r.latencies);
      const worst = Math.max(
        0,
        ...l.perRoom.filter((r) => r.latencies.length).map((r) => percentile(r.latencies, 95)),
      );
      return [
        l.rooms,
        all.length,
        s2(all, 50),
        s2(all, 95),
        all.length ? (Math.max(...all) / 1000).toFixed(2) : '-',
        hls.length ? `${s2(hls, 50)} / ${s2(hls, 95)}` : '-',
        l.perRoom.reduce((n, r) => n + r.missed, 0),
        (worst / 1000).toFixed(2),
        ms(
          l.perRoom.flatMap((r) => r.hops),
          95,
        ),
        ms(
          l.perRoom.flatMap((r) => r.translations),
          95,
        ),
        (mean(l.perRoom.map((r) => r.originals)) / (l.seconds / 60)).toFixed(1),
        l.perRoom.reduce((n, r) => n + r.gaps.length, 0),
      ];
    }),
  );
}

export function fairness(l: LevelFigures): { worst: number; meanP95: number; ratio: string } {
  const p95s = l.perRoom.map((r) => (r.behind.length ? percentile(r.behind, 95) : 0));
  const worst = Math.max(...p95s);
  const meanP95 = mean(p95s);
  // Under 0.1 s behind everywhere there is nothing to be unfair about.
  return { worst, meanP95, ratio: meanP95 >= 0.1 ? (worst / meanP95).toFixed(2) : '-' };
}

export function perRoomTable(l: LevelFigures): string {
  return table(
    [
      'room',
      'stream',
      'behind p95',
      'behind max',
      'e2e p95',
      'missed',
      'not live',
      'gap markers',
      'source state',
    ],
    l.perRoom.map((r) => [
      r.id,
      r.kind,
      r.behind.length ? percentile(r.behind, 95).toFixed(2) : '-',
      r.behind.length ? Math.max(...r.behind).toFixed(2) : '-',
      s2(r.latencies, 95),
      r.missed,
      r.notLive,
      r.gaps.length ? `${r.gaps.length}: ${r.gaps[0]!.slice(0, 60)}` : 0,
      r.state.slice(0, 70),
    ]),
  );
}

export function plumbing(l: LevelFigures, idle?: Record<string, number>): number {
  const seconds = SERVICES.reduce((sum, s) => sum + (l.cpu[s] ?? 0), 0);
  const idlePct = idle ? SERVICES.reduce((sum, s) => sum + (idle[s] ?? 0), 0) : 0;
  return ((seconds / l.seconds) * 100 - idlePct) / l.rooms;
}
