import { describe, expect, test } from '@jest/globals';
import { RealtimeTranscripts } from '../src/browser/lib/realtime-transcripts.js';
import { committed, completed, delta, speechStarted, speechStopped } from './helpers/realtime-events.js';

describe('RealtimeTranscripts', () => {
  test('deltas are suffixes: the partial text is their concatenation until completed replaces it', () => {
    const t = new RealtimeTranscripts();
    t.apply(speechStarted('item_1', 500));
    expect(t.speaking).toBe(true);
    expect(t.apply(delta('item_1', ' Hello'))).toBe(true);
    t.apply(delta('item_1', ' wor'));
    t.apply(delta('item_1', 'ld'));
    expect(t.partial).toBe('Hello world');
    expect(t.takeFinals()).toEqual([]);
    t.apply(speechStopped('item_1', 2100));
    t.apply(committed('item_1'));
    expect(t.speaking).toBe(false);
    expect(t.pending).toBe(1);
    t.apply(completed('item_1', ' Hello, world.'));
    expect(t.partial).toBe('');
    expect(t.pending).toBe(0);
    expect(t.takeFinals()).toEqual([
      { itemId: 'item_1', text: 'Hello, world.', audioStartMs: 500, audioEndMs: 2100 },
    ]);
    // Each final is released once; late events about it change nothing.
    expect(t.takeFinals()).toEqual([]);
    expect(t.apply(delta('item_1', ' again'))).toBe(false);
    expect(t.partial).toBe('');
  });

  test('a later utterance completed first waits for the earlier one', () => {
    const t = new RealtimeTranscripts();
    t.apply(speechStarted('a', 0));
    t.apply(committed('a'));
    t.apply(speechStarted('b', 3000));
    t.apply(delta('a', ' one'));
    t.apply(delta('b', ' two'));
    expect(t.partial).toBe('one two');
    t.apply(committed('b', 'a'));
    t.apply(completed('b', ' two.'));
    expect(t.takeFinals()).toEqual([]);
    expect(t.partial).toBe('one');
    t.apply(completed('a', ' One.'));
    expect(t.takeFinals().map((final) => final.text)).toEqual(['One.', 'two.']);
  });

  test('failed and empty transcripts release the queue without a caption', () => {
    const t = new RealtimeTranscripts();
    t.apply(committed('a'));
    t.apply(committed('b', 'a'));
    t.apply(committed('c', 'b'));
    t.apply(completed('c', ' three'));
    t.apply(completed('b', '   '));
    t.apply({
      type: 'conversation.item.input_audio_transcription.failed',
      item_id: 'a',
      error: { type: 'server_error', code: 'decode_failed', message: 'The decode failed' },
    });
    expect(t.takeFinals().map((final) => final.text)).toEqual(['three']);
    expect(t.takeFailures()).toEqual(['The decode failed']);
    expect(t.takeFailures()).toEqual([]);
  });

  test("a turn a guard trimmed (the gateway's extension) is marked on its final", () => {
    const t = new RealtimeTranscripts();
    t.apply(committed('a'));
    t.apply(committed('b', 'a'));
    t.apply({ ...completed('a', ' Thank you'), trimmed: true });
    t.apply(completed('b', ' Thank you all.'));
    expect(t.takeFinals()).toEqual([
      { itemId: 'a', text: 'Thank you', trimmed: true },
      { itemId: 'b', text: 'Thank you all.' },
    ]);
  });

  test('an utterance the server never committed does not hold later ones', () => {
    const t = new RealtimeTranscripts();
    t.apply(speechStarted('short', 0));
    t.apply(speechStarted('real', 900));
    t.apply(committed('real'));
    t.apply(completed('real', 'kept'));
    expect(t.takeFinals().map((final) => final.text)).toEqual(['kept']);
  });

  test('cleared forgets the open utterance; dropUnfinished forgets every unfinished one', () => {
    const t = new RealtimeTranscripts();
    t.apply(committed('a'));
    t.apply(speechStarted('b', 1000));
    t.apply(delta('b', ' open'));
    expect(t.unfinishedFromMs).toBe(0);
    expect(t.apply({ type: 'input_audio_buffer.cleared' })).toBe(true);
    expect(t.speaking).toBe(false);
    expect(t.pending).toBe(1);
    t.dropUnfinished();
    expect(t.pending).toBe(0);
    expect(t.unfinishedFromMs).toBeUndefined();
  });

  test('other events and malformed ones are ignored', () => {
    const t = new RealtimeTranscripts();
    expect(t.apply({ type: 'session.created', session: {} })).toBe(false);
    expect(t.apply({ type: 'conversation.item.input_audio_transcription.delta', delta: 'x' })).toBe(false);
    expect(t.apply({ type: 'error', error: { message: 'bad' } })).toBe(false);
    expect(t.partial).toBe('');
  });
});
