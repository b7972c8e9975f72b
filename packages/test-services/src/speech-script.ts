/**
 * Scripted speech for the translation tests and `pnpm bench translation`: a council meeting of
 * several paragraphs, and the captions a capture page would cut from it.
 *
 * The capture page (`RollingBuffer` of packages/capture) sends a window every 3, 6 or 9 s of new audio
 * (its interval setting), or sooner at a pause (>= 0.6 s quiet after >= 0.35 s of speech), and a
 * caption is the text a window commits. So the speech is given a time line: each word takes
 * 1 / wordsPerSecond (2.5 words/s, the synthetic speech model's rate; +-20 % per word), a comma
 * adds a short pause, a sentence end a pause of 0.2-0.9 s (some long enough to end a window), a
 * paragraph end 1.2 s; a caption ends when its audio reaches the interval or at a long pause.
 * Everything is drawn from a seeded generator: the same seed cuts the same captions.
 */

export const COUNCIL_MEETING = [
  'Good evening, everyone, and welcome to the regular meeting of the Riverside town council. Before we begin, I would like to remind members of the public that comments are limited to three minutes per speaker. The first item on the agenda tonight is the budget for the coming year. Our finance officer, Grace Hall, has prepared a summary, and she will take questions afterwards.',
  'Thank you, Madam Chair. The proposed budget is four point two million dollars, which is slightly higher than last year. Most of the increase comes from road repairs and the new library roof. We have also set aside money for the youth sports program, because the demand has grown every season. If the council approves the plan tonight, the work on the library can start in early spring.',
  'Councillor Okonkwo asked whether the road repairs could wait another year. Mr. Okonkwo pointed out that several families on Mill Street have complained about the noise and the traffic during construction. Could the town spread the work over two summers instead? The finance officer said that waiting would raise the cost, since the price of asphalt is expected to rise again.',
  'The next item is the proposal to extend the opening hours of the public swimming pool. Many residents wrote to us about it! The pool would stay open until nine in the evening from June to August. The staff would need two more lifeguards, and the council would pay for them from the parks budget... or so the committee suggests. A member of the public asked if the pool could also open earlier on weekends.',
  'Finally, the chair thanked everyone for coming and reminded them that the next meeting will be held on the second Tuesday of next month. The minutes of the meeting will be published on the town website within a week. If you have questions about any item on the agenda, please write to the town clerk. The meeting is adjourned.',
];

/** The names in COUNCIL_MEETING an operator would put in the room's vocabulary. */
export const COUNCIL_VOCABULARY = ['Grace Hall', 'Okonkwo', 'Riverside', 'Mill Street'];

export interface ScriptedCaption {
  id: number;
  text: string;
}

/** A small seeded generator (mulberry32): the same seed, the same numbers. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SENTENCE_END = /[.?!…]["'”’)]*$/u;

/** The captions a capture page with this interval would cut from `paragraphs`, numbered from `firstId`. */
export function captionsAsCaptured(
  paragraphs: readonly string[],
  options: { intervalSeconds: 3 | 6 | 9; wordsPerSecond?: number; seed?: number; firstId?: number },
): ScriptedCaption[] {
  const random = seededRandom(options.seed ?? 1);
  const wordSeconds = 1 / (options.wordsPerSecond ?? 2.5);
  const captions: ScriptedCaption[] = [];
  let id = options.firstId ?? 1;
  let current: string[] = [];
  let audio = 0;
  const cut = () => {
    if (current.length > 0) captions.push({ id: id++, text: current.join(' ') });
    current = [];
    audio = 0;
  };
  paragraphs.forEach((paragraph) => {
    const words = paragraph.split(/\s+/u).filter(Boolean);
    words.forEach((word, index) => {
      current.push(word);
      audio += wordSeconds * (0.8 + 0.4 * random());
      const pause =
        index === words.length - 1
          ? 1.2
          : SENTENCE_END.test(word)
            ? 0.2 + 0.7 * random()
            : word.endsWith(',')
              ? 0.15
              : 0;
      if (audio >= options.intervalSeconds || (pause >= 0.6 && audio >= 0.35)) cut();
      else audio += pause;
    });
  });
  cut();
  return captions;
}

/**
 * Harder than the page: pieces of `min`-`max` words that never end where a sentence ends, so
 * every sentence is split across captions.
 */
export function captionsCutMidSentence(
  paragraphs: readonly string[],
  options: { min?: number; max?: number; seed?: number; firstId?: number } = {},
): ScriptedCaption[] {
  const random = seededRandom(options.seed ?? 1);
  const min = options.min ?? 4;
  const max = options.max ?? 14;
  const words = paragraphs.join(' ').split(/\s+/u).filter(Boolean);
  const captions: ScriptedCaption[] = [];
  let id = options.firstId ?? 1;
  let start = 0;
  while (start < words.length) {
    let end = Math.min(words.length, start + min + Math.floor(random() * (max - min + 1)));
    // Move the cut off a sentence end (forward, else back), unless the text ends there.
    while (end < words.length && SENTENCE_END.test(words[end - 1]!)) end += 1;
    captions.push({ id: id++, text: words.slice(start, end).join(' ') });
    start = end;
  }
  return captions;
}
