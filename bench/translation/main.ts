// `pnpm bench translation [--targets=1,2,3,5] [--seconds=N] [--rate=3]`: live translation of the
// reviewed captions through a real Apertium APy (issue 34 item 5). Per run: a private PostgreSQL,
// the relay and the outputs service as processes from source; target languages added through the
// outputs API as the editor adds them; one writer publishing scripted speech (a council meeting,
// cut as the capture page cuts captions with its 3 s interval) into the output room at --rate
// captions/s; one reader of that room. Prints, per number of target languages: the added latency
// from an original reaching the reader to its first translation reaching the reader (p50/p95 over
// every caption and language), chrF of each language's final live text (latest text per id, in
// order) against the same engine's translation of the whole text at once, the CPU of APy and its
// pipelines (and of the outputs service) per minute of speech, APy's own time per caption for
// comparison; and the machine with its load. Nothing is written to the
// repository; it never fails on figures.

import { createPublisher } from '@live-captions/relay-client/node';
import { type ApertiumServer, captionsAsCaptured, startApertium } from '@live-captions/test-services';
import { chrF, createEngine, type TranslateTexts, translateText } from '@live-captions/translation';
import { load1, machineLine } from '../lib/machine.js';
import { percentile } from '../lib/stats.js';
import { cpuSeconds } from '../relay/servers.js';
import { RoomReader } from './reader.js';
import { printResults, type Result } from './report.js';
import { BENCH_SPEECH, BENCH_VOCABULARY } from './speech.js';
import { api, pause, ROOM, startStack, TOKENS, until } from './stack.js';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const TARGET_COUNTS = (option('targets') ?? '1,2,3,5').split(',').map(Number);
const RATE = Number(option('rate') ?? 3);
/** The words per second of the scripted speech's time line (speech-script.ts). */
const WORDS_PER_SECOND = 2.5;
/** After the last first translation: how long no translation frame may come before the run ends (corrections). */
const QUIET_MS = 3000;
/** How long after the last original the run waits for missing translations. */
const DRAIN_MS = 120_000;

for (const n of [...TARGET_COUNTS, RATE, Number(option('seconds') ?? 1)])
  if (!Number.isFinite(n) || n <= 0) {
    console.error(
      '--targets takes counts such as 1,3,5, --rate captions per second and --seconds the seconds of writing',
    );
    process.exit(2);
  }

// The captions of the whole speech once, or with --seconds cycled (new ids) to fill that long at --rate.
const script = captionsAsCaptured(BENCH_SPEECH, { intervalSeconds: 3 });
const SECONDS = option('seconds');
const CAPTIONS = SECONDS === undefined ? script.length : Math.max(1, Math.round(Number(SECONDS) * RATE));
const captions = Array.from({ length: CAPTIONS }, (_, i) => ({
  id: i + 1,
  text: script[i % script.length]!.text,
}));
const ids = captions.map((caption) => String(caption.id));
const words = captions.reduce((sum, caption) => sum + caption.text.split(/\s+/).length, 0);
const speechMinutes = words / WORDS_PER_SECOND / 60;

/** The engine as the translation stage calls it, for the whole-text reference and the listing. */
function apertium(url: string) {
  return createEngine({ kind: 'apertium' }, { allowedHosts: new Set(), apertiumUrl: url, timeoutMs: 60_000 });
}

/**
 * The targets to add, most distinct first: the CI pairs (Spanish, Catalan), then other languages,
 * then variants of a language already chosen (`ca-valencia`), which translate much as it does.
 */
function ordered(codes: string[]): string[] {
  const primary = (code: string) => code.split('-')[0]!;
  const rank = (code: string) => (code === 'es' ? 0 : code === 'ca' ? 1 : code.includes('-') ? 3 : 2);
  const sorted = [...codes].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const languages = sorted.filter((code, i) => sorted.findIndex((c) => primary(c) === primary(code)) === i);
  return [...languages, ...sorted.filter((code) => !languages.includes(code))];
}

/**
 * One run with `count` targets: the first `candidates` the outputs API accepts (one it refuses
 * with a 400 is said and dropped from `candidates`, so later runs do not try it again).
 */
async function run(
  apy: ApertiumServer,
  count: number,
  candidates: string[],
  reference: (ln: string) => Promise<string>,
): Promise<Result> {
  const stack = await startStack(apy.url);
  let reader: RoomReader | undefined;
  let writer: ReturnType<typeof createPublisher> | undefined;
  try {
    const vocabulary = await api(stack.outputsPort, 'PUT', `/rooms/${ROOM}/vocabulary`, {
      terms: BENCH_VOCABULARY,
    });
    if (vocabulary.status !== 200) throw new Error(`PUT vocabulary: ${vocabulary.status} ${vocabulary.text}`);
    const languages: string[] = [];
    for (let i = 0; i < candidates.length && languages.length < count; ) {
      const target = candidates[i]!;
      const added = await api(stack.outputsPort, 'POST', `/rooms/${ROOM}/translations`, {
        target,
        engine: 'apertium',
        source: 'en',
      });
      if (added.status === 201) {
        languages.push(target);
        i += 1;
      } else if (added.status === 400) {
        console.log(`The outputs API refuses ${target}, which APy lists: ${added.text}`);
        candidates.splice(i, 1);
      } else throw new Error(`POST translations ${target}: ${added.status} ${added.text}`);
    }
    if (languages.length < count)
      console.log(`${count} targets asked for, ${languages.length} accepted: using those`);
    // Before the clock starts: also starts each pair's pipeline in APy, as a long session finds it.
    const references = new Map<string, string>();
    for (const ln of languages) references.set(ln, await reference(ln));
    // The room is read (its first join starts at the relay's live edge: nothing may come before).
    await until('the outputs service reading the room', async () => {
      const health = (await api(stack.outputsPort, 'GET', '/health')).json as {
        relay?: string;
        leases?: { held: number };
      };
      return health.relay === 'connected' && health.leases?.held === 1;
    });
    await until('every translation started', async () => {
      const list = (await api(stack.outputsPort, 'GET', `/rooms/${ROOM}/translations`)).json as {
        translations: { state: string }[];
      };
      return (
        list.translations.length === languages.length &&
        list.translations.every((t) => t.state !== 'starting')
      );
    });
    reader = new RoomReader({ url: stack.relayUrl, room: ROOM, token: TOKENS.read });
    const room = reader;
    await until('the reader joined', () => room.joined);
    writer = createPublisher({ url: stack.relayUrl, room: ROOM, token: TOKENS.write });

    const cpuBefore = apy.cpuSeconds();
    const outputsPid = stack.outputs.child.pid!;
    const outputsBefore = cpuSeconds(outputsPid);
    const started = performance.now();
    for (const [index, caption] of captions.entries()) {
      // On a schedule, not after each other: a slow moment does not slow the writer down.
      const wait = started + (index * 1000) / RATE - performance.now();
      if (wait > 0) await pause(wait);
      writer.publish({ final: caption.text, id: caption.id });
    }
    const lastPublished = Date.now();
    await until(
      'every translation',
      () => room.complete(ids, languages) || Date.now() - lastPublished > DRAIN_MS,
      DRAIN_MS + 10_000,
    );
    // Corrections come when a sentence ends: the run ends once the translations have been quiet.
    await until(
      'the translations quiet',
      () => performance.now() - room.lastTranslationAt > QUIET_MS,
      120_000,
    );
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = apy.cpuSeconds() - cpuBefore;
    const outputsCpu = cpuSeconds(outputsPid) - outputsBefore;

    const latencies: number[] = [];
    const chrf = new Map<string, number>();
    const perLanguage = new Map<string, { p50: number; p95: number; missing: number; frames: number }>();
    let frames = 0;
    let missing = 0;
    for (const ln of languages) {
      const figures = room.figures(ids, ln);
      latencies.push(...figures.latencies);
      frames += figures.frames;
      missing += figures.missing;
      chrf.set(ln, chrF(figures.text, references.get(ln)!));
      perLanguage.set(ln, {
        p50: percentile(figures.latencies, 50),
        p95: percentile(figures.latencies, 95),
        missing: figures.missing,
        frames: figures.frames,
      });
    }
    return {
      languages,
      captions: captions.length,
      frames,
      missing,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      chrf,
      perLanguage,
      cpu,
      outputsCpu,
      wallSeconds,
      load: load1(),
      unexpected: room.unexpected,
      gaps: room.gaps,
    };
  } catch (error) {
    // What the outputs service said is what tells why (a translator failing, the room not read).
    const log = stack.outputs.output().trim().split('\n').slice(-30).join('\n');
    throw new Error(`${(error as Error).message}\nthe outputs service's last log lines:\n${log}`);
  } finally {
    writer?.close();
    reader?.close();
    await stack.stop();
  }
}

console.log(machineLine());
const apy = await startApertium();
const results: Result[] = [];
const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0));
let engineAlone = '';
try {
  const engine = apertium(apy.url);
  const offered = (await engine.targets('en')).map((target) => target.code);
  console.log(`APy at ${apy.url} translates English into: ${offered.join(', ') || 'nothing'}`);
  const choice = ordered(offered);
  const distinct = new Set(choice.map((code) => code.split('-')[0])).size;
  const most = Math.max(...TARGET_COUNTS);
  if (distinct < most)
    console.log(
      `Only ${distinct} distinct target languages are installed (${most} asked for): the runs take variants next (${choice.slice(distinct, most).join(', ') || 'none'}), then use what exists. More pairs: apt-get install apertium-en-gl apertium-eo-en apertium-hbs-eng`,
    );
  console.log(
    `${captions.length} captions (${words} words, ${speechMinutes.toFixed(2)} min of speech at ${WORDS_PER_SECOND} words/s), cut as the capture page cuts them (3 s interval), published at ${RATE}/s by 1 writer (${((speechMinutes * 60) / (captions.length / RATE)).toFixed(1)} times as fast as they were spoken); 1 reader of the output room\n`,
  );
  // The same engine's translation of the whole text at once, per language (once).
  const references = new Map<string, Promise<string>>();
  const whole = captions.map((caption) => caption.text).join(' ');
  const reference = (target: string) => {
    const translate: TranslateTexts = (texts, context) =>
      engine.translate({ source: 'en', target, texts, ...(context ? { context } : {}) });
    if (!references.has(target))
      references.set(target, translateText(whole, translate, { keep: BENCH_VOCABULARY }));
    return references.get(target)!;
  };
  // The engine alone, for comparison with the added latency: one caption per request, in turn.
  const alone: number[] = [];
  for (const caption of script) {
    const began = performance.now();
    await engine.translate({ source: 'en', target: choice[0]!, texts: [caption.text] });
    alone.push(performance.now() - began);
  }
  engineAlone = `APy alone (${choice[0]}, each of the ${script.length} captions in one request, in turn): p50 ${ms(percentile(alone, 50))} ms, p95 ${ms(percentile(alone, 95))} ms, load ${load1()}`;
  console.log(engineAlone);
  for (const count of TARGET_COUNTS) {
    const result = await run(apy, count, choice, reference);
    results.push(result);
    console.log(
      `${result.languages.join(', ')}: ${result.frames} translation frames in ${result.wallSeconds.toFixed(1)} s, ${result.missing} missing, load ${result.load}`,
    );
  }
} finally {
  await apy.stop();
}

printResults(results, { engineAlone, speechMinutes, wordsPerSecond: WORDS_PER_SECOND });
