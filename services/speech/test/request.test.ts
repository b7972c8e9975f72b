import { describe, expect, it } from '@jest/globals';
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import type { EngineInfo } from '@live-captions/protocol';
import { WHISPER_LANGUAGES } from '@live-captions/protocol';
import { HttpError, Messages } from '../src/domain/errors.js';
import {
  checkWindow,
  parseIds,
  parseNativeQuery,
  parseRoom,
  requestSignature,
} from '../src/domain/request.js';

const multilingual: EngineInfo = {
  model: 'synthetic-tiny',
  device: 'cpu',
  computeType: 'f16',
  multilingual: true,
  languages: [...WHISPER_LANGUAGES],
  modes: ['transcribe', 'translate', 'both'],
  translationTarget: 'en',
  decodeSlots: 1,
  threadsPerSlot: 1,
  beamSize: 1,
};
const englishOnly: EngineInfo = {
  ...multilingual,
  model: 'synthetic-tiny.en',
  multilingual: false,
  languages: ['en'],
  modes: ['transcribe'],
  translationTarget: null,
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return error instanceof Error ? error.message : '';
  }
  throw new Error('expected a refusal');
}

describe('parseNativeQuery', () => {
  it('applies the defaults: en, transcribe, window 0, final 1, context 0', () => {
    expect(parseNativeQuery({}, multilingual)).toEqual({
      language: 'en',
      mode: 'transcribe',
      window: false,
      final: true,
      contextSeconds: 0,
    });
  });

  it('treats any flag value other than 1 as false', () => {
    expect(parseNativeQuery({ window: '1', final: '0' }, multilingual)).toMatchObject({
      window: true,
      final: false,
    });
    expect(parseNativeQuery({ window: 'true', final: 'yes' }, multilingual)).toMatchObject({
      window: false,
      final: false,
    });
    expect(parseNativeQuery({ final: ['1', '1'] }, multilingual)).toMatchObject({ final: false });
  });

  it('checks language, then mode, then the English-only model, then context, in that order', () => {
    const bad = { language: 'english', mode: 'dictate', context_seconds: '2' };
    expect(refusal(() => parseNativeQuery(bad, englishOnly))).toBe(Messages.language);
    expect(refusal(() => parseNativeQuery({ ...bad, language: 'fr' }, englishOnly))).toBe(Messages.mode);
    expect(refusal(() => parseNativeQuery({ ...bad, language: 'fr', mode: 'transcribe' }, englishOnly))).toBe(
      Messages.englishOnly,
    );
    expect(
      refusal(() => parseNativeQuery({ ...bad, language: 'fr', mode: 'transcribe' }, multilingual)),
    ).toBe(Messages.context);
  });

  it('refuses names, empty and repeated language values; accepts auto and every Whisper code', () => {
    for (const language of ['english', '', 'EN', 'xx', 'en-US']) {
      expect(refusal(() => parseNativeQuery({ language }, multilingual))).toBe(Messages.language);
    }
    expect(refusal(() => parseNativeQuery({ language: ['en', 'fr'] }, multilingual))).toBe(Messages.language);
    for (const language of ['auto', ...WHISPER_LANGUAGES]) {
      expect(parseNativeQuery({ language }, multilingual).language).toBe(language);
    }
  });

  it('lets an English-only model transcribe en and auto only', () => {
    expect(parseNativeQuery({ language: 'auto' }, englishOnly).language).toBe('auto');
    expect(refusal(() => parseNativeQuery({ mode: 'translate' }, englishOnly))).toBe(Messages.englishOnly);
    expect(refusal(() => parseNativeQuery({ mode: 'both' }, englishOnly))).toBe(Messages.englishOnly);
  });

  it('accepts context 0-1 as plain decimals and refuses everything else', () => {
    for (const value of ['0', '0.5', '1', '1.0', '.25', '5e-1']) {
      expect(parseNativeQuery({ context_seconds: value }, multilingual).contextSeconds).toBe(Number(value));
    }
    for (const value of ['', ' ', '-0.1', '1.01', 'NaN', 'Infinity', '0x1', '0.5s', ['0.5', '0.5']]) {
      expect(refusal(() => parseNativeQuery({ context_seconds: value }, multilingual))).toBe(
        Messages.context,
      );
    }
  });
});

describe('the native prompt (extension)', () => {
  it('passes names and terms on as the prompt; none when absent or empty', () => {
    expect(parseNativeQuery({ prompt: 'Quilter, Ngozi Okonjo-Iweala' }, multilingual)).toMatchObject({
      prompt: 'Quilter, Ngozi Okonjo-Iweala',
    });
    expect(parseNativeQuery({ prompt: 'é'.repeat(MAX_PROMPT_CHARS) }, multilingual).prompt).toHaveLength(
      MAX_PROMPT_CHARS,
    );
    expect(parseNativeQuery({}, multilingual)).not.toHaveProperty('prompt');
    expect(parseNativeQuery({ prompt: '' }, multilingual)).not.toHaveProperty('prompt');
  });

  it(`refuses more than ${MAX_PROMPT_CHARS} characters, or a repeated parameter, after the context`, () => {
    for (const prompt of ['x'.repeat(MAX_PROMPT_CHARS + 1), ['Quilter', 'Ngozi']]) {
      try {
        parseNativeQuery({ prompt }, multilingual);
        throw new Error('accepted');
      } catch (error) {
        expect(error).toMatchObject({ status: 400, message: Messages.prompt, param: 'prompt' });
      }
    }
    const long = 'x'.repeat(MAX_PROMPT_CHARS + 1);
    expect(refusal(() => parseNativeQuery({ context_seconds: '2', prompt: long }, multilingual))).toBe(
      Messages.context,
    );
  });
});

describe('parseIds', () => {
  it('checks the request ID before the stream ID', () => {
    expect(refusal(() => parseIds('bad id', 'also bad'))).toBe(Messages.requestId);
    expect(refusal(() => parseIds('request-0001', 'short'))).toBe(Messages.streamId);
  });

  it('accepts 8-80 letters, digits, _ and - only', () => {
    expect(parseIds('a'.repeat(80), 'Ab_-0123')).toEqual({ requestId: 'a'.repeat(80), streamId: 'Ab_-0123' });
    expect(parseIds(undefined, undefined)).toEqual({ requestId: '', streamId: undefined });
    for (const id of ['', 'a'.repeat(7), 'a'.repeat(81), 'abcdefg.', 'abcdefgé', 'abcd efgh']) {
      expect(refusal(() => parseIds(id, undefined))).toBe(Messages.requestId);
      expect(refusal(() => parseIds(undefined, id))).toBe(Messages.streamId);
    }
  });
});

describe('parseRoom (X-Caption-Room)', () => {
  it("takes a relay room's name, nothing for none, and refuses anything else naming the header", () => {
    expect(parseRoom('main-hall_2')).toBe('main-hall_2');
    expect(parseRoom(undefined)).toBeUndefined();
    expect(parseRoom('')).toBeUndefined();
    for (const room of ['a b', 'hall/1', 'x'.repeat(129), 'salle-é']) {
      expect(refusal(() => parseRoom(room))).toBe(Messages.room);
    }
  });
});

describe('checkWindow', () => {
  const options = {
    language: 'en',
    mode: 'transcribe' as const,
    window: true,
    final: false,
    contextSeconds: 0.5,
  };

  it('needs new audio after the context, and two seconds of it in an unfinished window', () => {
    expect(refusal(() => checkWindow({ ...options, final: true }, 8000))).toBe(Messages.window);
    expect(refusal(() => checkWindow(options, 16000 * 2.49))).toBe(Messages.window);
    expect(() => checkWindow(options, 16000 * 2.5)).not.toThrow();
    expect(() => checkWindow({ ...options, final: true }, 8001)).not.toThrow();
    expect(() => checkWindow({ ...options, window: false, contextSeconds: 0 }, 160)).not.toThrow();
  });
});

describe('requestSignature', () => {
  it('changes with the body and with every option', () => {
    const body = Buffer.alloc(640, 1);
    const options = {
      language: 'en',
      mode: 'transcribe' as const,
      window: false,
      final: true,
      contextSeconds: 0,
    };
    const base = requestSignature('native', body, options);
    expect(requestSignature('native', Buffer.from(body), { ...options })).toBe(base);
    const variants = [
      requestSignature('native', Buffer.alloc(640, 2), options),
      requestSignature('v1', body, options),
      requestSignature('native', body, { ...options, language: 'de' }),
      requestSignature('native', body, { ...options, mode: 'both' }),
      requestSignature('native', body, { ...options, window: true }),
      requestSignature('native', body, { ...options, final: false }),
      requestSignature('native', body, { ...options, contextSeconds: 0.5 }),
      requestSignature('native', body, { ...options, prompt: 'Quilter' }),
      requestSignature('native', body, options, 'text'),
    ];
    expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
  });
});
