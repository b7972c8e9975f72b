// `pnpm bench ingest [--max-streams=N] [--seconds=S] [--loops=L] [--skip-capacity] [--skip-latency]`
// The stream sources service (services/sources) as it runs, all real processes: the relay, the
// speech gateway on the realistic-length synthetic model, the sources service, a private
// nginx-rtmp, and ffmpeg publishers playing the committed speech fixture (JFK, 11 s, then 6 s of
// silence, looped) in real time (`-re`).
//
// 1. Streams kept in real time: N pull-RTMP sources, each reading its own stream from the private
//    nginx-rtmp, for S seconds (default 40) after all are live; at 1, 4, 8 and 16, then doubling
//    while it keeps up and bisecting (bench/lib/levels.ts). A level keeps up while every source
//    stays live, none skips to the live edge or drops audio (no gap marker), every one sends
//    captions, and the p95 of its `behindSeconds` (audio received, not yet captioned, sampled
//    every second from the API) stays under 6 s (two 3 s windows). Printed per core.
// 2. End of speech -> final caption in the source room, p50/p95, for a pull-RTMP source, an SRT
//    push source and the capture page's path, side by side in the same run on the same gateway
//    and model: the page's path is the capture policy the page runs (`CaptureSession` of
//    @live-captions/capture, 50 ms frames of the same clip pushed in real time, windows through
//    `POST /transcribe`, captions published to the same room); the browser's own microphone
//    latency (an AudioWorklet block, a few ms) is not in it. For the streams, the end of speech is
//    placed by the publisher's `-progress` clock (its earliest report: wall time - stream time),
//    so the media server, the encoder's buffering and ffmpeg's decode are in the figure. Per loop
//    the latency is the arrival of the last final caption of the loop (before the next loop's
//    speech can be captioned); a loop with none is counted as missed.
// Figures only, never a failure on timings.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CaptureSession,
  captionFrames,
  hasText,
  randomId,
  rms,
  SENSITIVITY,
  windowCaption,
} from '@live-captions/capture';
import type { CreatedStreamSource, RelayCaption, StreamSource } from '@live-captions/protocol';
import { createPublisher } from '@live-captions/relay-client/node';
import { freePort, killAll } from '@live-captions/test-services';
import {
  API_KEY,
  api,
  type Base,
  ROOM,
  sleep,
  startBase,
  startMediaServer,
  startSources,
  TOKENS,
  until,
} from '../../services/sources/test/helpers/stack.js';
import { searchLevels } from '../lib/levels.js';
import { load1, machineLine } from '../lib/machine.js';
import { FRAME, prepareSpeechClip, SAMPLE_RATE } from '../lib/speech-clip.js';
import { percentile, table } from '../lib/stats.js';

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

interface Publisher {
  child: ChildProcess;
  /** Wall time (ms) of stream time 0, from the earliest `-progress` report. */
  origin(): number | undefined;
  stop(): Promise<void>;
}

/** ffmpeg as an encoder: the clip looped in real time to `url` (flv over RTMP, mpegts over SRT). */
function publish(wav: string, url: string, format: 'flv' | 'mpegts'): Publisher {
  const child = spawn(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', '-nostdin', '-progress', 'pipe:1', '-stats_period', '0.5'].concat([
      '-re',
      '-stream_loop',
      '-1',
      '-i',
      wav,
      '-c:a',
      'aac',
      '-b:a',
      '64k',
      '-f',
      format,
      url,
    ]),
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let origin: number | undefined;
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const now = Date.now();
    text += chunk.toString();
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^out_time_us=(\d+)$/.exec(line.trim());
      if (!match || Number(match[1]) <= 0) continue;
      const candidate = now - Number(match[1]) / 1000;
      origin = origin === undefined ? candidate : Math.min(origin, candidate);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    origin: () => origin,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

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

/** The capture page's path: the capture policy fed the clip in real time, captions to the room. */
function pagePath(
  gatewayUrl: string,
  relayPort: number,
  clip: { samples: Float32Array; speechEnd: number; period: number },
  loops: number,
): { done: Promise<void>; speechEnds: number[] } {
  const publisher = createPublisher({
    url: `ws://127.0.0.1:${relayPort}/ws`,
    room: ROOM,
    token: TOKENS.write,
  });
  let n = 0;
  const session = new CaptureSession({
    baseUrl: `${gatewayUrl}/`,
    streamId: randomId('page').slice(0, 40),
    language: 'en',
    mode: 'transcribe',
    apiKey: API_KEY,
    threshold: SENSITIVITY.normal,
    intervalSeconds: 3,
    onResult: (result) => {
      const caption = windowCaption(result, 'transcribe');
      if (!hasText(caption)) return;
      n += 1;
      for (const frame of captionFrames(caption, `pagepath-${n}`)) publisher.publish(frame);
    },
  });
  const speechEnds: number[] = [];
  const done = (async () => {
    const start = Date.now();
    const perLoop = Math.floor(clip.samples.length / FRAME);
    for (let loop = 0; loop < loops; loop++) {
      for (let f = 0; f < perLoop; f++) {
        // Real time: each frame at its own time, as a microphone delivers it.
        const due = start + ((loop * perLoop + f + 1) * FRAME * 1000) / SAMPLE_RATE;
        const wait = due - Date.now();
        if (wait > 0) await sleep(wait);
        const frame = clip.samples.slice(f * FRAME, (f + 1) * FRAME);
        session.push(frame, rms(frame));
        if ((f + 1) * FRAME === Math.round(clip.speechEnd * SAMPLE_RATE)) speechEnds.push(Date.now());
      }
    }
    await session.stop();
    await sleep(2000);
    publisher.close();
  })();
  return { done, speechEnds };
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
