/**
 * The sentence-aware translator of a track, with a deterministic in-test translator
 * (fake-engine.ts) that, like a real engine, moves words across a cut: an adjective before a noun
 * goes after it ("the red car" -> "el coche rojo"), so "the red" alone gives "el rojo" and the
 * whole sentence corrects it.
 */
import { describe, expect, test } from '@jest/globals';
import {
  chrF,
  clearTrackState,
  EngineError,
  type SourceCaption,
  TRACK_LIMITS,
  translateStep,
} from '../src/index.js';
import { fakeEngine, fakeTranslate, finalText, run } from './fake-engine.js';

describe('translateStep', () => {
  test('a caption is translated at once; the sentence end corrects the earlier piece', async () => {
    const { publications } = await run([
      { id: 1, text: 'The red' },
      { id: 2, text: 'car is fast.' },
    ]);
    expect(publications[0]).toEqual([{ id: 1, text: 'El rojo', correction: false }]);
    expect(publications[1]).toEqual([
      { id: 1, text: 'El coche rojo', correction: true },
      { id: 2, text: 'es rápido.', correction: false },
    ]);
  });

  test('the open sentence is translated as a whole; each caption shows the new words only', async () => {
    const { publications, engine } = await run([
      { id: 'a', text: 'The council met' },
      { id: 'b', text: 'on Tuesday and' },
      { id: 'c', text: 'said yes.' },
    ]);
    expect(engine.calls.map((call) => call.texts)).toEqual([
      ['The council met'],
      ['The council met on Tuesday and'],
      ['The council met on Tuesday and said yes.'],
    ]);
    expect(publications.map((step) => step.map((publication) => publication.text))).toEqual([
      ['El consejo reunió'],
      ['el Martes y'],
      ['dijo sí.'],
    ]);
  });

  test('a sentence ending inside a caption: the caption closes one and opens the next, with context', async () => {
    const { publications, engine } = await run([
      { id: 1, text: 'The council met on the next' },
      { id: 2, text: 'budget. The new' },
      { id: 3, text: 'library opens today.' },
    ]);
    expect(engine.calls[1]).toEqual({ texts: ['The council met on the next budget.', 'The new'] });
    expect(engine.calls[2]).toEqual({
      texts: ['The new library opens today.'],
      context: 'The council met on the next budget.',
    });
    expect(publications[1]).toEqual([
      { id: 1, text: 'El consejo reunió el el presupuesto', correction: true },
      { id: 2, text: 'próximo. El nuevo', correction: false },
    ]);
    expect(publications[2]).toEqual([
      // "nuevo" stays with caption 2, which showed it; the noun the engine put before it joins it.
      { id: 2, text: 'próximo. El biblioteca nuevo', correction: true },
      { id: 3, text: 'abre hoy.', correction: false },
    ]);
  });

  test('the final text is the sentence-by-sentence translation, however the captions cut it', async () => {
    const sentences = [
      'The council met on Tuesday.',
      'The red car is fast and the new library opens today.',
      'Grace said yes.',
      'The big park and the old car.',
      'We talk.',
    ];
    const allWords = sentences.join(' ').split(' ');
    for (const size of [1, 2, 3, 5, 7]) {
      const captions: SourceCaption[] = [];
      for (let at = 0; at < allWords.length; at += size)
        captions.push({ id: captions.length + 1, text: allWords.slice(at, at + size).join(' ') });
      const { latest, state } = await run(captions);
      expect(finalText(captions, latest)).toBe(sentences.map(fakeTranslate).join(' '));
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
    }
  });

  test('a correction of a caption (same id) re-translates its sentence and corrects what changed', async () => {
    const captions = [
      { id: 1, text: 'The red' },
      { id: 2, text: 'car is fast.' },
      { id: 3, text: 'We talk.' },
    ];
    const first = await run(captions);
    const { publications } = await run([{ id: 1, text: 'The old red' }], first.engine, [], first.state);
    expect(first.engine.calls.at(-1)).toEqual({ texts: ['The old red car is fast.'] });
    // Caption 2 still shows its words: only the corrected caption changes.
    expect(publications[0]).toEqual([{ id: 1, text: 'El viejo coche rojo', correction: true }]);
    // Published again unchanged when the same text comes again, without an engine call.
    const calls = first.engine.calls.length;
    const again = await translateStep(first.state, { id: 3, text: 'We  talk.' }, first.engine.translate, {
      keep: [],
    });
    expect(again.publications).toEqual([{ id: 3, text: 'Nosotros hablamos.', correction: true }]);
    expect(first.engine.calls.length).toBe(calls);
  });

  test('a correction of the open caption', async () => {
    const { publications } = await run([
      { id: 1, text: 'The council met' },
      { id: 2, text: 'on the red' },
      { id: 2, text: 'on the red car' },
      { id: 3, text: 'today.' },
    ]);
    expect(publications[2]).toEqual([{ id: 2, text: 'el el coche rojo', correction: true }]);
    expect(publications[3]).toEqual([{ id: 3, text: 'hoy.', correction: false }]);
  });

  test('the vocabulary survives: terms become placeholders the engine passes unchanged', async () => {
    const engine = fakeEngine();
    const { publications } = await run(
      [
        { id: 1, text: 'Grace' },
        { id: 2, text: 'hall said yes and grace said yes.' },
      ],
      engine,
      ['Grace Hall', ' '],
    );
    expect(engine.calls.map((call) => call.texts)).toEqual([
      ['Grace'],
      ['ZQX1Q said yes and grace said yes.'],
    ]);
    // Caption 1's "Gracia" must not claim the "gracia" at the far end of the sentence.
    expect(publications[1]).toEqual([
      { id: 1, text: 'Grace', correction: true },
      { id: 2, text: 'hall dijo sí y gracia dijo sí.', correction: false },
    ]);
  });

  test('an empty caption is published empty without an engine call', async () => {
    const { publications, engine } = await run([{ id: 1, text: '  ' }]);
    expect(publications[0]).toEqual([{ id: 1, text: '', correction: false }]);
    expect(engine.calls).toEqual([]);
  });

  test('a failing engine changes nothing: the same step can be retried', async () => {
    const { state } = await run([{ id: 1, text: 'The red' }]);
    const before = JSON.stringify(state);
    const failing = async () => {
      throw new EngineError('Apertium cannot be reached', { code: 'engine_unreachable', retryable: true });
    };
    await expect(
      translateStep(state, { id: 2, text: 'car is fast.' }, failing, { keep: [] }),
    ).rejects.toMatchObject({
      code: 'engine_unreachable',
    });
    expect(JSON.stringify(state)).toBe(before);
    const short = async (texts: string[]) => texts.slice(1);
    await expect(
      translateStep(state, { id: 2, text: 'car is fast.' }, short, { keep: [] }),
    ).rejects.toMatchObject({
      code: 'engine_bad_answer',
    });
    const retried = await translateStep(state, { id: 2, text: 'car is fast.' }, fakeEngine().translate, {
      keep: [],
    });
    expect(retried.publications.at(-1)).toEqual({ id: 2, text: 'es rápido.', correction: false });
  });

  test('speech without sentence ends: the open sentence is closed at the limit, memory stays bounded', async () => {
    const captions = Array.from({ length: 120 }, (_, index) => ({
      id: index,
      text: 'the red car is fast and',
    }));
    const { state, engine, latest } = await run(captions);
    const longest = Math.max(
      ...engine.calls.flatMap((call) => call.texts.map((text) => text.split(' ').length)),
    );
    expect(longest).toBeLessThanOrEqual(TRACK_LIMITS.openWords + 6);
    expect(state.captions.length).toBeLessThanOrEqual(TRACK_LIMITS.captions + TRACK_LIMITS.openPieces + 1);
    expect(state.forgotten.length).toBe(120 - state.captions.length);
    expect(
      chrF(finalText(captions, latest), captions.map((caption) => fakeTranslate(caption.text)).join(' ')),
    ).toBe(1);
  });

  test('a late correction of a forgotten caption is translated on its own; a clear forgets the sentence', async () => {
    const captions = Array.from({ length: 20 }, (_, index) => ({ id: index + 1, text: 'We talk.' }));
    const { state, engine } = await run(captions);
    expect(state.forgotten).toContain(1);
    const late = await translateStep(state, { id: 1, text: 'The red car.' }, engine.translate, { keep: [] });
    expect(late.publications).toEqual([{ id: 1, text: 'El coche rojo.', correction: true }]);
    expect(late.state).toBe(state);

    const open = await run([{ id: 'x', text: 'The red' }]);
    const cleared = clearTrackState(open.state);
    expect(cleared.captions).toEqual([]);
    const after = await translateStep(cleared, { id: 'y', text: 'car is fast.' }, fakeEngine().translate, {
      keep: [],
    });
    expect(after.publications).toEqual([{ id: 'y', text: 'coche es rápido.', correction: false }]);
    const corrected = await translateStep(
      cleared,
      { id: 'x', text: 'The red car.' },
      fakeEngine().translate,
      {
        keep: [],
      },
    );
    expect(corrected.publications).toEqual([{ id: 'x', text: 'El coche rojo.', correction: true }]);
  });
});
