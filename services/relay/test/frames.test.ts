import { describe, expect, it } from '@jest/globals';
import { relayCaptionSchema } from '@live-captions/protocol';
import {
  captionFrame,
  FrameError,
  frameHasBody,
  parseJoin,
  parseJson,
  parsePublish,
} from '../src/domain/frames.js';

const TOKEN = 'a'.repeat(32);
const JOIN = { protocol: 2, join: 'room', role: 'read', token: TOKEN };
const PUBLISH = { msg: true, final: 'hello', id: 1, delivery: { client: 'publisher_00000001', sequence: 1 } };

/** The close code and reason a frame is refused with, or `accepted`. */
function refusal(parse: () => unknown): { code: number; reason: string } | 'accepted' {
  try {
    parse();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof FrameError)) throw error;
    return { code: error.code, reason: error.reason };
  }
}

const policy = (reason: string) => ({ code: 1008, reason });

describe('parseJson', () => {
  it('refuses text that is not JSON with 1007', () => {
    expect(refusal(() => parseJson('{"protocol": 2,'))).toEqual({ code: 1007, reason: 'Invalid JSON' });
    expect(parseJson('[1]')).toEqual([1]);
  });
});

describe('parseJoin', () => {
  it('keeps the join fields, and the cursor when one is given', () => {
    expect(parseJoin({ ...JOIN })).toEqual(JOIN);
    const cursor = { epoch: 'e'.repeat(64), sequence: 0 };
    expect(parseJoin({ ...JOIN, cursor })).toEqual({ ...JOIN, cursor });
    expect('cursor' in parseJoin({ ...JOIN })).toBe(false);
  });

  it.each([
    ['not an object', null, 'Join first'],
    ['an array', [JOIN], 'Join first'],
    ['a caption', { msg: true, final: 'hi', id: 1 }, 'Join first'],
    ['a room that is not a string', { ...JOIN, join: 7 }, 'Join first'],
    ['an unknown key', { ...JOIN, extra: 1, other: 2 }, 'Unknown join field: extra'],
    ['a long unknown key', { ...JOIN, ['k'.repeat(60)]: 1 }, `Unknown join field: ${'k'.repeat(40)}`],
    ['another protocol', { ...JOIN, protocol: 1 }, 'Unsupported protocol (expected 2)'],
    ['no protocol', { join: 'room', role: 'read', token: TOKEN }, 'Unsupported protocol (expected 2)'],
    ['an unknown role', { ...JOIN, role: 'admin' }, 'role must be "read" or "write"'],
    ['a token that is not a string', { ...JOIN, token: 5 }, 'token must be a string'],
    [
      'a cursor with another key',
      { ...JOIN, cursor: { epoch: 'e', sequence: 1, x: 1 } },
      'cursor must be {epoch, sequence}',
    ],
    [
      'a cursor epoch over 64',
      { ...JOIN, cursor: { epoch: 'e'.repeat(65), sequence: 1 } },
      'cursor must be {epoch, sequence}',
    ],
    [
      'a negative cursor sequence',
      { ...JOIN, cursor: { epoch: 'e', sequence: -1 } },
      'cursor must be {epoch, sequence}',
    ],
    [
      'a fractional cursor sequence',
      { ...JOIN, cursor: { epoch: 'e', sequence: 1.5 } },
      'cursor must be {epoch, sequence}',
    ],
    [
      'a cursor sequence above 2^53',
      { ...JOIN, cursor: { epoch: 'e', sequence: 2 ** 53 } },
      'cursor must be {epoch, sequence}',
    ],
    ['a null cursor', { ...JOIN, cursor: null }, 'cursor must be {epoch, sequence}'],
    // Several faults: the first check in the order above names it.
    ['an unknown key and another protocol', { ...JOIN, protocol: 3, extra: 1 }, 'Unknown join field: extra'],
    [
      'another protocol and a bad role',
      { ...JOIN, protocol: 3, role: 'x' },
      'Unsupported protocol (expected 2)',
    ],
    ['a bad role and token', { ...JOIN, role: 'x', token: 1 }, 'role must be "read" or "write"'],
    ['a bad token and cursor', { ...JOIN, token: 1, cursor: 1 }, 'token must be a string'],
  ])('refuses %s with 1008', (_what, frame, reason) => {
    expect(refusal(() => parseJoin(frame))).toEqual(policy(reason));
  });
});

describe('parsePublish', () => {
  it('returns the delivery and the caption body in a fixed order, without unset fields', () => {
    const parsed = parsePublish({
      delivery: { sequence: 3, client: 'publisher_00000001' },
      c: true,
      ln: 'en',
      label: 'translation',
      id: 'line-1',
      interm: 'hel',
      msg: true,
    });
    expect(parsed.delivery).toEqual({ client: 'publisher_00000001', sequence: 3 });
    expect(parsed.body).toBe(
      '{"msg":true,"interm":"hel","id":"line-1","label":"translation","ln":"en","c":true}',
    );
    expect(parsePublish({ ...PUBLISH }).body).toBe('{"msg":true,"final":"hello","id":1}');
    // a caption a guard trimmed keeps its mark for the editor
    expect(parsePublish({ ...PUBLISH, trimmed: true }).body).toBe(
      '{"msg":true,"final":"hello","id":1,"trimmed":true}',
    );
    expect(parsePublish({ ...PUBLISH, final: 'x'.repeat(4000), id: 'i'.repeat(128) }).body).toContain(
      '"id":"i',
    );
  });

  it.each([
    ['not an object', 'hi', 'Expected a caption object'],
    ['an array', [PUBLISH], 'Expected a caption object'],
    ['an unknown key', { ...PUBLISH, extra: 1 }, 'Unknown caption field: extra'],
    ['msg not true', { ...PUBLISH, msg: 1 }, 'msg must be true'],
    ['both final and interm', { ...PUBLISH, interm: 'b' }, 'Exactly one of final or interm'],
    [
      'neither final nor interm',
      { msg: true, id: 1, delivery: PUBLISH.delivery },
      'Exactly one of final or interm',
    ],
    ['a null interm beside final', { ...PUBLISH, interm: null }, 'Exactly one of final or interm'],
    ['a final over 4000', { ...PUBLISH, final: 'x'.repeat(4001) }, 'final must be a string of at most 4000'],
    [
      'an interm that is a number',
      { msg: true, interm: 5, id: 1, delivery: PUBLISH.delivery },
      'interm must be a string of at most 4000',
    ],
    ['an id object', { ...PUBLISH, id: { a: 1 } }, 'id must be an integer or a string of at most 128'],
    ['a fractional id', { ...PUBLISH, id: 1.5 }, 'id must be an integer or a string of at most 128'],
    [
      'an id over 128',
      { ...PUBLISH, id: 'i'.repeat(129) },
      'id must be an integer or a string of at most 128',
    ],
    [
      'no id',
      { msg: true, final: 'a', delivery: PUBLISH.delivery },
      'id must be an integer or a string of at most 128',
    ],
    ['a label over 128', { ...PUBLISH, label: 'l'.repeat(129) }, 'label must be a string of at most 128'],
    ['a null label', { ...PUBLISH, label: null }, 'label must be a string of at most 128'],
    ['a trimmed mark that is not a boolean', { ...PUBLISH, trimmed: 1 }, 'trimmed must be true or false'],
    ['an ln over 32', { ...PUBLISH, ln: 'l'.repeat(33) }, 'ln must be a string of at most 32'],
    ['a c that is not a boolean', { ...PUBLISH, c: 'yes' }, 'c must be true or false'],
    [
      'no delivery',
      { msg: true, final: 'a', id: 1 },
      'delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}',
    ],
    [
      'a short delivery client',
      { ...PUBLISH, delivery: { client: 'short', sequence: 1 } },
      'delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}',
    ],
    [
      'a delivery sequence of 0',
      { ...PUBLISH, delivery: { client: 'publisher_00000001', sequence: 0 } },
      'delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}',
    ],
    [
      'a delivery with another key',
      { ...PUBLISH, delivery: { ...PUBLISH.delivery, x: 1 } },
      'delivery must be {client: [A-Za-z0-9_-]{16,128}, sequence >= 1}',
    ],
    // Several faults: the first check in the order above names it.
    ['an unknown key and msg false', { ...PUBLISH, msg: false, zz: 1 }, 'Unknown caption field: zz'],
    ['msg false and both texts', { ...PUBLISH, msg: false, interm: 'b' }, 'msg must be true'],
    [
      'both texts, one too long, and a bad id',
      { ...PUBLISH, final: 'x'.repeat(4001), interm: 'b', id: {} },
      'Exactly one of final or interm',
    ],
    ['no text and a bad delivery', { msg: true, id: 1, delivery: 1 }, 'Exactly one of final or interm'],
    [
      'a long final and a bad id',
      { ...PUBLISH, final: 'x'.repeat(4001), id: {} },
      'final must be a string of at most 4000',
    ],
    [
      'a bad id and label',
      { ...PUBLISH, id: [], label: 1 },
      'id must be an integer or a string of at most 128',
    ],
    ['a bad label and ln', { ...PUBLISH, label: 1, ln: 1 }, 'label must be a string of at most 128'],
    ['a bad ln and c', { ...PUBLISH, ln: 1, c: 1 }, 'ln must be a string of at most 32'],
    ['a bad c and delivery', { ...PUBLISH, c: 1, delivery: 1 }, 'c must be true or false'],
  ])('refuses a publish with %s with 1008', (_what, frame, reason) => {
    expect(refusal(() => parsePublish(frame))).toEqual(policy(reason));
  });
});

describe('parsePublish and the caption text rule', () => {
  const RULE = 'control characters (but tab and line breaks), lone surrogates and noncharacters are refused';

  it.each([
    ['a NUL in final', { ...PUBLISH, final: 'a\u0000b' }, 'final has U+0000 at 1'],
    [
      'a BEL in interm',
      { msg: true, interm: 'x\u0007', id: 1, delivery: PUBLISH.delivery },
      'interm has U+0007 at 1',
    ],
    ['an ESC', { ...PUBLISH, final: '\u001b[31mred' }, 'final has U+001B at 0'],
    ['a DEL', { ...PUBLISH, final: 'a\u007f' }, 'final has U+007F at 1'],
    ['a C1 control (NEL)', { ...PUBLISH, final: 'a\u0085b' }, 'final has U+0085 at 1'],
    ['a lone high surrogate', { ...PUBLISH, final: 'ok \ud83d' }, 'final has U+D83D at 3'],
    ['a lone low surrogate', { ...PUBLISH, final: '\ude00 ok' }, 'final has U+DE00 at 0'],
    ['U+FFFE', { ...PUBLISH, final: '\ufffe' }, 'final has U+FFFE at 0'],
    ['U+FFFF', { ...PUBLISH, final: 'a\uffff' }, 'final has U+FFFF at 1'],
    ['U+10FFFF', { ...PUBLISH, final: '\u{10ffff}' }, 'final has U+10FFFF at 0'],
    ['U+FDD0', { ...PUBLISH, final: '\ufdd0' }, 'final has U+FDD0 at 0'],
    ['a NUL in a string id', { ...PUBLISH, id: 'a\u0000' }, 'id has U+0000 at 1'],
    ['a NUL in label', { ...PUBLISH, label: '\u0000' }, 'label has U+0000 at 0'],
    ['a NUL in ln', { ...PUBLISH, ln: 'en\u0000' }, 'ln has U+0000 at 2'],
    [
      'a long final with a NUL at its end',
      { ...PUBLISH, final: `${'x'.repeat(3999)}\u0000` },
      'final has U+0000 at 3999',
    ],
  ])('refuses %s with 1008, naming the field, the character and where', (_what, frame, start) => {
    const refused = refusal(() => parsePublish(frame));
    expect(refused).toEqual(policy(`${start}: ${RULE}`));
    // A close reason is at most 123 bytes (RFC 6455), or ws throws instead of closing.
    expect(Buffer.byteLength((refused as { reason: string }).reason)).toBeLessThanOrEqual(123);
  });

  it('keeps tabs, line breaks, paired surrogates and every other character', () => {
    const text = 'a\tb\nc\r\nd 😀 \u200f\u2028 é \ufffd \u00a0 \u{1f600}';
    expect(JSON.parse(parsePublish({ ...PUBLISH, final: text }).body).final).toBe(text);
  });

  it('names the longest possible reason within 123 bytes', () => {
    const refused = refusal(() =>
      parsePublish({ msg: true, interm: `${'x'.repeat(3999)}\u{10ffff}`, id: 1, delivery: PUBLISH.delivery }),
    );
    expect(Buffer.byteLength((refused as { reason: string }).reason)).toBeLessThanOrEqual(123);
  });
});

describe('captionFrame', () => {
  it('appends the room position to the body', () => {
    const frame = captionFrame('{"msg":true,"final":"a","id":1}', 'ep"och', 7, 1_700_000_000_123);
    expect(JSON.parse(frame)).toEqual({
      msg: true,
      final: 'a',
      id: 1,
      relay: { epoch: 'ep"och', sequence: 7 },
      at: 1_700_000_000_123,
    });
  });

  it('starts with the caption body, which is how a duplicate is compared', () => {
    const body = '{"msg":true,"final":"é😀","id":1}';
    const frame = Buffer.from(captionFrame(body, 'e', 1, 5));
    expect(frameHasBody(frame, body)).toBe(true);
    expect(frameHasBody(frame, '{"msg":true,"final":"é😀","id":2}')).toBe(false);
    expect(frameHasBody(frame, '{"msg":true,"final":"é😀"}')).toBe(false);
    expect(frameHasBody(frame, `${body.slice(0, -1)},"x":1}`)).toBe(false);
    // A body with one field fewer is not the same publish either.
    const labelled = '{"msg":true,"final":"a","id":1,"label":"x"}';
    expect(
      frameHasBody(Buffer.from(captionFrame(labelled, 'e', 1, 5)), '{"msg":true,"final":"a","id":1}'),
    ).toBe(false);
  });

  it('gives readers a caption of the shared schema', () => {
    const { body } = parsePublish({ ...PUBLISH, label: 'translation', ln: 'fr', c: false });
    expect(
      relayCaptionSchema.safeParse(JSON.parse(captionFrame(body, 'epoch', 1, Date.now()))).error,
    ).toBeUndefined();
  });
});
