import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CreatedStreamSource, RelayCaption, StreamSource } from '@live-captions/protocol';
import { freePort, killAll } from '@live-captions/test-services';
import { startMediaServer } from '../../services/sources/test/helpers/media.js';
import {
  api,
  type Base,
  ROOM,
  sleep,
  startBase,
  startSources,
  until,
} from '../../services/sources/test/helpers/stack.js';
import { type Publisher, publish } from '../lib/clip-publisher.js';
import { searchLevels } from '../lib/levels.js';
import { load1, machineLine } from '../lib/machine.js';
import { prepareSpeechClip } from '../lib/speech-clip.js';
import { percentile, table } from '../lib/stats.js';
import { pagePath } from './page-path.js';

const arg = (name: string, fallback: number) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split('=')[1]) : fallback;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
const MAX_STREAMS = arg('max-streams', 32);
const MEASURE_S = arg('seconds', 40);
const LOOPS = arg('loops', 8);
const SILENCE_S = 6;
const BEHIND_LIMIT_S = 6;
const MODEL = 'ggml-synthetic-tiny-speech.bin';

const prepareClip = (dir: string) => prepareSpeechClip(dir, SILENCE_S);

/** Captions of the room as they arrive, with their arrival time. */
const arrivals: { caption: RelayCaption; at: number }[] = [];
const isFinal = (caption: RelayCaption) => 'final' in caption && caption.label === undefined;
const isGap = (caption: RelayCaption) => 'final' in caption && caption.label === 'gap';
const prefixOf = (id: string) => `${id.slice(0, 8)}-`;

/** Per loop: last final caption (ids starting with `prefix`) after each loop's end of speech. */
function loopLatencies(prefix: string, speechEnds: number[]): { latencies: number[]; missed: number } {
  const latencies: number[] = [];
  let missed = 0;
  for (const end of speechEnds) {
    // Until the next loop's speech starts (the silence) and 1 s more: no window of it can be
    // answered as final that soon, so later captions are the next loop's.
    const until = end + SILENCE_S * 1000 + 1000;
    const mine = arrivals.filter(
      (a) => isFinal(a.caption) && String(a.caption.id).startsWith(prefix) && a.at > end && a.at <= until,
    );
    if (mine.length === 0) missed += 1;
    else latencies.push(Math.max(...mine.map((a) => a.at)) - end);
  }
  return { latencies, missed };
}

async function addSource(sourcesPort: number, name: string, input: unknown): Promise<CreatedStreamSource> {
  const res = await api(sourcesPort, 'POST', '/sources', { room: ROOM, name, input });
  if (res.status !== 201) throw new Error(`adding ${name}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as CreatedStreamSource;
}

async function sourcesNow(sourcesPort: number): Promise<StreamSource[]> {
  return (await api(sourcesPort, 'GET', '/sources')).json.sources as StreamSource[];
}

async function removeAll(sourcesPort: number): Promise<void> {
  for (const source of await sourcesNow(sourcesPort))
    await api(sourcesPort, 'DELETE', `/sources/${source.id}`);
}

/** One capacity level: n pull-RTMP sources live for MEASURE_S; whether it kept real time. */
async function capacityLevel(
  n: number,
  ports: { sources: number; media: number },
  wav: string,
): Promise<{ kept: boolean; row: (string | number)[] }> {
  const before = load1();
  const publishers = Array.from({ length: n }, (_, i) =>
    publish(wav, `rtmp://127.0.0.1:${ports.media}/live/bench${n}x${i}`, 'flv'),
  );
  const ids: string[] = [];
  try {
    await sleep(1000);
    for (let i = 0; i < n; i++)
      ids.push(
        (
          await addSource(ports.sources, `bench ${i}`, {
            kind: 'pull',
            url: `rtmp://127.0.0.1:${ports.media}/live/bench${n}x${i}`,
          })
        ).source.id,
      );
    const allLive = async () => (await sourcesNow(ports.sources)).every((s) => s.state === 'live');
    await until(`${n} sources live`, allLive, 60_000).catch(() => undefined);
    // Captions before the measured period do not count (the first windows of each source).
    const startAt = Date.now();
    const behind: number[] = [];
    let notLive = 0;
    while (Date.now() - startAt < MEASURE_S * 1000) {
      await sleep(1000);
      for (const source of await sourcesNow(ports.sources)) {
        behind.push(source.behindSeconds);
        if (source.state !== 'live') notLive += 1;
      }
    }
    const window = arrivals.filter((a) => a.at >= startAt);
    const prefixes = ids.map(prefixOf);
    const gaps = window.filter(
      (a) => isGap(a.caption) && prefixes.some((p) => String(a.caption.id).startsWith(p)),
    );
    const captioned = new Set(
      window
        .filter((a) => isFinal(a.caption))
        .map((a) => prefixes.find((p) => String(a.caption.id).startsWith(p)))
        .filter(Boolean),
    );
    const p95 = behind.length ? percentile(behind, 95) : Number.NaN;
    const kept = notLive === 0 && gaps.length === 0 && captioned.size === n && p95 < BEHIND_LIMIT_S;
    const finals = window.filter(
      (a) => isFinal(a.caption) && prefixes.some((p) => String(a.caption.id).startsWith(p)),
    );
    console.error(`pull-rtmp x${n}: ${kept ? 'keeps up' : 'falls behind'}`);
    return {
      kept,
      row: [
        n,
        `${before} -> ${load1()}`,
        Number.isNaN(p95) ? '-' : p95.toFixed(2),
        behind.length ? Math.max(...behind).toFixed(2) : '-',
        notLive,
        gaps.length,
        `${captioned.size}/${n}`,
        (finals.length / n / (MEASURE_S / 60)).toFixed(1),
        kept ? 'yes' : 'no',
      ],
    };
  } finally {
    await removeAll(ports.sources);
    await Promise.all(publishers.map((p) => p.stop()));
  }
}

async function latencies(
  base: Base,
  ports: { sources: number; media: number },
  clip: ReturnType<typeof prepareClip>,
): Promise<(string | number)[][]> {
  const loopMs = clip.period * 1000;
  const rtmpName = 'latency-rtmp';
  const rtmpPublisher = publish(clip.wav, `rtmp://127.0.0.1:${ports.media}/live/${rtmpName}`, 'flv');
  await sleep(1000);
  const rtmp = await addSource(ports.sources, 'latency pull RTMP', {
    kind: 'pull',
    url: `rtmp://127.0.0.1:${ports.media}/live/${rtmpName}`,
  });
  const srt = await addSource(ports.sources, 'latency SRT push', { kind: 'srt-push' });
  const srtPublisher = publish(clip.wav, srt.push!.url, 'mpegts');
  const before = load1();
  try {
    await until(
      'both latency sources live',
      async () => (await sourcesNow(ports.sources)).every((s) => s.state === 'live'),
      60_000,
    );
    // One loop to settle (the first windows), then the page's path starts with the same clip.
    await sleep(loopMs);
    const startedAt = Date.now();
    const page = pagePath(base.gatewayUrl, base.relay.port, clip, LOOPS);
    await page.done;
    await sleep(8000);
    const ends = (publisher: Publisher) => {
      const origin = publisher.origin();
      if (origin === undefined) return [];
      const list: number[] = [];
      for (let k = 0; ; k++) {
        const end = origin + k * loopMs + clip.speechEnd * 1000;
        if (end < startedAt) continue;
        if (end > startedAt + LOOPS * loopMs) break;
        list.push(end);
      }
      return list;
    };
    const paths = [
      {
        name: 'pull RTMP (nginx-rtmp -> sources)',
        prefix: prefixOf(rtmp.source.id),
        ends: ends(rtmpPublisher),
      },
      { name: 'SRT push (encoder -> sources)', prefix: prefixOf(srt.source.id), ends: ends(srtPublisher) },
      { name: "capture page's path (CaptureSession, same clip)", prefix: 'pagepath-', ends: page.speechEnds },
    ];
    const s = (ms: number[], p: number) => (ms.length ? (percentile(ms, p) / 1000).toFixed(2) : '-');
    return paths.map((path) => {
      const { latencies, missed } = loopLatencies(path.prefix, path.ends);
      return [
        path.name,
        path.ends.length,
        s(latencies, 50),
        s(latencies, 95),
        missed,
        `${before} -> ${load1()}`,
      ];
    });
  } finally {
    await removeAll(ports.sources);
    await Promise.all([rtmpPublisher.stop(), srtPublisher.stop()]);
  }
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const clip = prepareClip(dir);
  const cores = availableParallelism();
  console.log(
    `${machineLine()}\nmodel: ${MODEL} (synthetic, about 2.5 tokens per second of audio), gateway and sources ` +
      `service on this machine; clip: JFK ${clip.speechEnd.toFixed(1)} s of speech + ${SILENCE_S} s silence, looped in real time\n`,
  );
  const base = await startBase({
    onCaption: (caption) => arrivals.push({ caption, at: Date.now() }),
    gatewayEnv: { CAPTION_MAX_STREAMS: String(MAX_STREAMS + 8) },
  });
  const media = await startMediaServer();
  const srtFirst = await freePort();
  const sources = await startSources(base, {
    SOURCES_MAX_PER_NODE: String(Math.min(256, MAX_STREAMS + 4)),
    SOURCES_RTMP_PORT: '0',
    SOURCES_SRT_PORTS: `${srtFirst}-${srtFirst + 3}`,
    SOURCES_PUBLIC_HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  });
  const ports = { sources: sources.port, media: media.port };
  try {
    if (!flag('skip-latency')) {
      const rows = await latencies(base, ports, clip);
      console.log('End of speech -> last final caption of the loop in the source room, seconds\n');
      console.log(table(['path', 'loops', 'p50', 'p95', 'missed', 'load'], rows));
      console.log('');
    }
    if (!flag('skip-capacity')) {
      const rows: (string | number)[][] = [];
      const best = await searchLevels(
        ['pull-rtmp'] as const,
        async (n) => {
          const level = await capacityLevel(n, ports, clip.wav);
          rows.push(level.row);
          return level.kept;
        },
        MAX_STREAMS,
      );
      rows.sort((a, b) => Number(a[0]) - Number(b[0]));
      console.log(
        `Pull-RTMP sources at once, ${MEASURE_S} s each after all are live; behind = audio received and not yet ` +
          'captioned (s, sampled every second); captions/min per source\n',
      );
      console.log(
        table(
          [
            'sources',
            'load',
            'behind p95',
            'behind max',
            'not live',
            'gaps',
            'captioned',
            'captions/min',
            'keeps up',
          ],
          rows,
        ),
      );
      const most = best['pull-rtmp'];
      const perCore = Number(most.replace('>=', '')) / cores;
      console.log(
        `\nMost pull-RTMP sources kept in real time: ${most} on ${cores} cores (${most.startsWith('>=') ? '>=' : ''}${perCore.toFixed(1)} per core, gateway decoding included)`,
      );
    }
    console.log(`\n${machineLine()} (at the end)`);
  } finally {
    await killAll([sources.proc]);
    await media.stop();
    await base.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
