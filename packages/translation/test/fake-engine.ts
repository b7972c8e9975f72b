/**
 * The track suite's engine: deterministic and, like a real engine, it moves words across a cut:
 * an adjective before a noun goes after it ("the red car" -> "el coche rojo"), so "the red" alone
 * gives "el rojo" and the whole sentence corrects it. And `run`, which takes captions through the
 * track translator as the translation stage does.
 */
import {
  emptyTrackState,
  type Publication,
  type SourceCaption,
  type TrackState,
  translateStep,
} from '../src/index.js';

const WORDS: Record<string, string> = {
  the: 'el',
  red: 'rojo',
  car: 'coche',
  is: 'es',
  fast: 'rápido',
  council: 'consejo',
  met: 'reunió',
  on: 'el',
  tuesday: 'martes',
  budget: 'presupuesto',
  next: 'próximo',
  item: 'punto',
  big: 'grande',
  new: 'nuevo',
  library: 'biblioteca',
  opens: 'abre',
  today: 'hoy',
  grace: 'gracia',
  hall: 'sala',
  said: 'dijo',
  yes: 'sí',
  and: 'y',
  a: 'un',
  park: 'parque',
  old: 'viejo',
  we: 'nosotros',
  talk: 'hablamos',
};
const ADJECTIVES = new Set(['red', 'big', 'new', 'old', 'next']);
const NOUNS = new Set(['car', 'library', 'budget', 'item', 'park', 'council']);

/** The in-test engine: word for word, adjective-noun pairs swapped, unknown words unchanged. */
export function fakeTranslate(text: string): string {
  const tokens = text
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => {
      const [, core = '', tail = ''] = /^(.*?)([.,?!…]*)$/u.exec(token) ?? [];
      return { core, tail };
    });
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    const [a, b] = [tokens[i]!, tokens[i + 1]!];
    if (a.tail === '' && ADJECTIVES.has(a.core.toLowerCase()) && NOUNS.has(b.core.toLowerCase())) {
      [a.core, b.core] = [b.core, a.core];
      i += 1;
    }
  }
  return tokens
    .map(({ core, tail }) => {
      const word = WORDS[core.toLowerCase()];
      const out =
        word === undefined ? core : /^\p{Lu}/u.test(core) ? word[0]!.toUpperCase() + word.slice(1) : word;
      return out + tail;
    })
    .join(' ');
}

export interface Engine {
  translate: (texts: string[], context?: string) => Promise<string[]>;
  calls: { texts: string[]; context?: string }[];
}

export function fakeEngine(): Engine {
  const calls: { texts: string[]; context?: string }[] = [];
  return {
    calls,
    translate: async (texts, context) => {
      calls.push({ texts, ...(context !== undefined ? { context } : {}) });
      return texts.map(fakeTranslate);
    },
  };
}

/** Runs captions through the track (the state through JSON between steps, as the stage stores it). */
export async function run(
  captions: SourceCaption[],
  engine = fakeEngine(),
  keep: string[] = [],
  start = emptyTrackState(),
) {
  let state: TrackState = start;
  const publications: Publication[][] = [];
  for (const caption of captions) {
    const step = await translateStep(JSON.parse(JSON.stringify(state)), caption, engine.translate, { keep });
    state = step.state;
    publications.push(step.publications);
  }
  const latest = new Map<string | number, string>();
  for (const step of publications)
    for (const publication of step) latest.set(publication.id, publication.text);
  return { state, publications, latest, engine };
}

export const finalText = (captions: SourceCaption[], latest: Map<string | number, string>) =>
  captions.map((caption) => latest.get(caption.id) ?? '').join(' ');
