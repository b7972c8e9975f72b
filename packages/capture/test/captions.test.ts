import { describe, expect, test } from '@jest/globals';
import type { TranscribeResponse } from '@live-captions/protocol';
import {
  applyWordRules,
  captionFrames,
  GAP_LABEL,
  GapMarks,
  gapFrame,
  gapText,
  hasText,
  levelFromRms,
  smoothLevel,
  windowCaption,
  withWords,
} from '../src/index.js';

const answer = (fields: Partial<TranscribeResponse>): TranscribeResponse =>
  ({
    text: '',
    transcript: '',
    translation: '',
    language: 'de',
    output_language: 'de',
    translation_language: null,
    mode: 'transcribe',
    audio_seconds: 3,
    committed_seconds: 2,
    request_id: 'req-00000001',
    stream_id: 'stream-00000001',
    queue_seconds: 0,
    inference_seconds: 0.1,
    ...fields,
  }) as TranscribeResponse;

describe('captions of a window', () => {
  test('transcribe: the text in its language; translate: English; both: transcript and translation', () => {
    expect(windowCaption(answer({ text: ' Hallo Welt ' }), 'transcribe')).toEqual({
      text: 'Hallo Welt',
      ln: 'de',
    });
    expect(
      windowCaption(answer({ text: ' Hello world', output_language: 'en', mode: 'translate' }), 'translate'),
    ).toEqual({ text: 'Hello world', ln: 'en' });
    const both = windowCaption(
      answer({ text: ' Hallo', transcript: ' Hallo', translation: ' Hello', mode: 'both', trimmed: true }),
      'both',
    );
    expect(both).toEqual({ text: 'Hallo', ln: 'de', translation: 'Hello', trimmed: true });
    expect(captionFrames(both, 'src-7')).toEqual([
      { final: 'Hallo', id: 'src-7', ln: 'de', trimmed: true },
      { final: 'Hello', id: 'src-7', ln: 'en', label: 'translation', trimmed: true },
    ]);
  });

  test('an empty window publishes nothing; word rules reach text and translation', () => {
    const empty = windowCaption(answer({ text: '  ' }), 'transcribe');
    expect(hasText(empty)).toBe(false);
    expect(captionFrames(empty, 'x-1')).toEqual([]);
    const rules = { replacements: [{ from: 'hallo', to: 'servus' }], maskProfanity: true };
    const words = (text: string) => applyWordRules(text, rules);
    expect(withWords({ text: 'Hallo shit', translation: 'hallo' }, words)).toEqual({
      text: 'Servus s***',
      translation: 'servus',
    });
  });

  test('gap markers say why, with their length, under the gap label', () => {
    expect(gapText(9.04, 'skipped')).toBe('[gap: 9.0 s skipped to catch up with the live edge]');
    expect(gapText(3, 'dropped')).toBe('[gap: 3.0 s of audio dropped; the speech service was away too long]');
    expect(gapFrame(21.5, 'interrupted', 'src-4')).toEqual({
      final: '[gap: 21.5 s without sound; the stream was interrupted]',
      id: 'src-4',
      label: GAP_LABEL,
    });
  });

  test('consecutive gaps of one kind are one marker that grows under its id; a caption or another kind starts a new one', () => {
    const marks = new GapMarks();
    let n = 0;
    const id = () => `cap-${++n}`;
    expect(marks.add(9, 'skipped', id)).toEqual(gapFrame(9, 'skipped', 'cap-1'));
    expect(marks.add(6.5, 'skipped', id)).toEqual(gapFrame(15.5, 'skipped', 'cap-1'));
    expect(marks.add(2, 'dropped', id)).toEqual(gapFrame(2, 'dropped', 'cap-2'));
    marks.captioned();
    expect(marks.add(3, 'dropped', id)).toEqual(gapFrame(3, 'dropped', 'cap-3'));
  });
});

describe('level', () => {
  test('level meter maps -60..0 dBFS to 0..1 and releases slowly', () => {
    expect(levelFromRms(0)).toBe(0);
    expect(levelFromRms(1)).toBe(1);
    expect(levelFromRms(0.001)).toBeCloseTo(0, 6);
    expect(levelFromRms(0.0316)).toBeCloseTo(0.5, 2);
    expect(smoothLevel(0.2, 0.8)).toBe(0.8);
    expect(smoothLevel(0.8, 0.2)).toBeCloseTo(0.71, 6);
  });
});
