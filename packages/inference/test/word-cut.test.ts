import { cutWords, groupWords } from '../src/index.js';

const tokens = [
  { text: ' So', t0: 0.1, t1: 0.4 },
  { text: ' my', t0: 0.6, t1: 0.8 },
  { text: ' fell', t0: 0.9, t1: 1.2 },
  { text: 'ow', t0: 1.2, t1: 1.5 },
  { text: ' Amer', t0: 1.7, t1: 2.1 },
  { text: 'icans', t0: 2.1, t1: 2.6 },
  { text: ' ask', t0: 2.8, t1: 3.3 },
  { text: ' not', t0: 3.4, t1: 3.9 },
];

describe('groupWords', () => {
  it('joins sub-word tokens and spans their times', () => {
    expect(groupWords(tokens).map((w) => [w.text, w.t0, w.t1])).toEqual([
      [' So', 0.1, 0.4],
      [' my', 0.6, 0.8],
      [' fellow', 0.9, 1.5],
      [' Americans', 1.7, 2.6],
      [' ask', 2.8, 3.3],
      [' not', 3.4, 3.9],
    ]);
  });
});

describe('cutWords', () => {
  it('keeps the last second of an unfinished window open', () => {
    const cut = cutWords({ tokens, duration: 4, context: 0, final: false });
    expect(cut.cutoff).toBe(3);
    expect(cut.text).toBe('So my fellow Americans');
    expect(cut.committedSeconds).toBe(2.6);
  });

  it('drops words whose midpoint lies in the context', () => {
    // " my" (0.6-0.8, midpoint 0.7) is context; " fellow" (0.9-1.5, midpoint 1.2) is new.
    const cut = cutWords({ tokens, duration: 4, context: 0.75, final: false });
    expect(cut.text).toBe('fellow Americans');
  });

  it('commits the whole window when final', () => {
    const cut = cutWords({ tokens, duration: 3.8, context: 0.5, final: true });
    expect(cut.text).toBe('my fellow Americans ask not');
    expect(cut.committedSeconds).toBe(3.8);
  });

  it('commits up to the cutoff when no word is complete', () => {
    const long = [{ text: ' Everything', t0: 0.6, t1: 2.9 }];
    const cut = cutWords({ tokens: long, duration: 3, context: 0.5, final: false });
    expect(cut.text).toBe('');
    expect(cut.committedSeconds).toBe(2);
  });

  it('never commits before the context', () => {
    const cut = cutWords({ tokens: [], duration: 1.2, context: 0.5, final: false });
    expect(cut.cutoff).toBe(0.5);
    expect(cut.committedSeconds).toBe(0.5);
  });

  it('keeps multi-byte words whole', () => {
    const cjk = [
      { text: ' 我们', t0: 0.1, t1: 0.5 },
      { text: '今天', t0: 0.5, t1: 0.9 },
    ];
    expect(cutWords({ tokens: cjk, duration: 2, context: 0, final: true }).text).toBe('我们今天');
  });
});
