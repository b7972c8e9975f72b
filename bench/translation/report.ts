// The translation bench's tables: per number of languages, then per language.
import { machineLine } from '../lib/machine.js';
import { table } from '../lib/stats.js';

/** What one run (a number of target languages) measured. */
export interface Result {
  languages: string[];
  captions: number;
  frames: number;
  missing: number;
  p50: number;
  p95: number;
  chrf: Map<string, number>;
  perLanguage: Map<string, { p50: number; p95: number; missing: number; frames: number }>;
  cpu: number;
  /** CPU seconds of the outputs service (the stage: reading, queueing, translating, publishing). */
  outputsCpu: number;
  wallSeconds: number;
  load: string;
  unexpected: number;
  gaps: number;
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(0));

export function printResults(
  results: Result[],
  {
    engineAlone,
    speechMinutes,
    wordsPerSecond,
  }: { engineAlone: string; speechMinutes: number; wordsPerSecond: number },
): void {
  console.log(`\n${machineLine()}\n`);
  console.log(
    table(
      [
        'languages',
        'captions',
        'translations sent',
        'missing',
        'added latency p50 ms',
        'p95 ms',
        'chrF (lowest language)',
        'APy CPU s',
        'APy CPU s / min of speech',
        'outputs CPU s / min of speech',
        'load (1 min)',
      ],
      results.map((r) => [
        `${r.languages.length} (${r.languages.join(', ')})`,
        r.captions,
        r.frames,
        r.missing,
        ms(r.p50),
        ms(r.p95),
        Math.min(...r.chrf.values()).toFixed(3),
        r.cpu.toFixed(2),
        (r.cpu / speechMinutes).toFixed(2),
        (r.outputsCpu / speechMinutes).toFixed(2),
        r.load,
      ]),
    ),
  );
  console.log('\nPer language:\n');
  console.log(
    table(
      ['languages', 'language', 'translations sent', 'missing', 'p50 ms', 'p95 ms', 'chrF'],
      results.flatMap((r) =>
        r.languages.map((ln) => {
          const figures = r.perLanguage.get(ln)!;
          return [
            r.languages.length,
            ln,
            figures.frames,
            figures.missing,
            ms(figures.p50),
            ms(figures.p95),
            r.chrf.get(ln)!.toFixed(3),
          ];
        }),
      ),
    ),
  );
  console.log(`\n${engineAlone}`);
  const odd = results.filter((r) => r.unexpected > 0 || r.gaps > 0);
  for (const r of odd)
    console.log(
      `${r.languages.length} languages: ${r.unexpected} frames of another label, ${r.gaps} gaps at the reader`,
    );
  console.log(
    `\n'translations sent': first translations and corrections (a caption's translation is corrected when its sentence ends); latency: an original reaching the reader to its first translation reaching the reader, over every caption and language; chrF: the final live text (latest per id, in order) against APy's translation of the whole text at once; speech minutes from the words at ${wordsPerSecond} words/s.`,
  );
}
