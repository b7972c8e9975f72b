import { afterEach, describe, expect, it } from '@jest/globals';
import type { RelayCaption, RelayGap } from '@live-captions/protocol';
import { createPublisher, createReader } from '@live-captions/relay-client/node';
import { Client, relayPerTest, SOURCE, TOKENS, until } from './helpers.js';

const cleanups: (() => void)[] = [];
// Declared before relayPerTest's hook: same-level afterEach hooks run in order, clients before the relay.
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
const start = relayPerTest();

/** A reader of the source room (20 ms backoff) and a publisher to it, both closed after the test. */
function clients(url: string, publisherBackoffMs?: number) {
  const captions: RelayCaption[] = [];
  const gaps: RelayGap[] = [];
  const reader = createReader({
    url,
    room: SOURCE,
    token: TOKENS.sourceRead,
    backoffMs: 20,
    onCaption: (c) => captions.push(c),
    onGap: (g) => gaps.push(g),
  });
  const publisher = createPublisher({
    url,
    room: SOURCE,
    token: TOKENS.sourceWrite,
    ...(publisherBackoffMs === undefined ? {} : { backoffMs: publisherBackoffMs }),
  });
  cleanups.push(
    () => reader.close(),
    () => publisher.close(),
  );
  return { reader, publisher, captions, gaps };
}

describe('relay-client against the relay', () => {
  it('publisher and reader survive a relay restart: resend, reconnect, relay-restarted gap', async () => {
    let running = await start();
    const { url, port } = running;
    const { reader, publisher, captions, gaps } = clients(url, 20);
    await until(() => reader.state === 'joined');
    for (let i = 1; i <= 3; i++) publisher.publish({ final: `before ${i}`, id: i });
    await until(() => captions.length === 3);

    await running.close();
    running = await start({}, { port });
    for (let i = 1; i <= 3; i++) publisher.publish({ final: `after ${i}`, id: 10 + i });
    await until(() => captions.length === 6 && publisher.queued === 0);

    expect(captions.map((c) => c.final)).toEqual([
      'before 1',
      'before 2',
      'before 3',
      'after 1',
      'after 2',
      'after 3',
    ]);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]!.gap).toBe('relay-restarted');
    expect(captions.slice(3).map((c) => c.relay.sequence)).toEqual([1, 2, 3]);
    expect(running.relay.hub.stats.published).toBe(3);
  });

  it('a reader that reconnects gets what it missed, once', async () => {
    const { url } = await start();
    const { reader, publisher, captions } = clients(url);
    await until(() => reader.state === 'joined');
    publisher.publish({ final: 'one', id: 1 });
    await until(() => captions.length === 1);
    // Make the relay drop the reader: it comes back with its cursor after the backoff.
    reader.reconnect();
    publisher.publish({ final: 'two', id: 2 });
    publisher.publish({ final: 'three', id: 3 });
    await until(() => captions.length === 3 && reader.state === 'joined');
    expect(captions.map((c) => c.final)).toEqual(['one', 'two', 'three']);
  });

  it('a publish breaking the caption text rule is refused, and the publisher we ship cleans first', async () => {
    const { url } = await start();
    // A client of its own making is told which field, which character and where.
    const raw = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    raw.send({
      msg: true,
      final: 'a\u0000b',
      id: 1,
      delivery: { client: 'publisher_00000001', sequence: 1 },
    });
    expect(await raw.closed).toEqual({
      code: 1008,
      reason:
        'final has U+0000 at 1: control characters (but tab and line breaks), lone surrogates and noncharacters are refused',
    });
    // relay-client (capture page, editor, outputs) cleans: it keeps publishing, nothing is lost.
    const { reader, publisher, captions } = clients(url);
    await until(() => reader.state === 'joined');
    publisher.publish({
      final: 'nul\u0000 bell\u0007 lone\ud800 del\u007f',
      id: 'x\u0000',
      label: 'l\u001b',
    });
    publisher.publish({ interm: 'next\ufffe', id: 2, ln: 'en\u0085' });
    publisher.publish({ final: 'last\tline\nbreak', id: 3 });
    await until(() => captions.length === 3);
    expect(publisher.state).toBe('joined');
    expect(captions.map(({ final, interm, id, label, ln }) => ({ final, interm, id, label, ln }))).toEqual([
      { final: 'nul bell lone\ufffd del', interm: undefined, id: 'x', label: 'l', ln: undefined },
      { final: undefined, interm: 'next', id: 2, label: undefined, ln: 'en\n' },
      { final: 'last\tline\nbreak', interm: undefined, id: 3, label: undefined, ln: undefined },
    ]);
  });

  it('a reader with replayMs gets the recent history first, then live captions', async () => {
    const { url } = await start();
    const { publisher, captions: seenLive } = clients(url);
    publisher.publish({ final: 'earlier', id: 1 });
    await until(() => seenLive.length === 1);
    const captions: RelayCaption[] = [];
    const late = createReader({
      url,
      room: SOURCE,
      token: TOKENS.sourceRead,
      replayMs: 60_000,
      onCaption: (c) => captions.push(c),
    });
    cleanups.push(() => late.close());
    await until(() => captions.length === 1);
    publisher.publish({ final: 'live', id: 2 });
    await until(() => captions.length === 2);
    expect(captions.map((c) => c.final)).toEqual(['earlier', 'live']);
  });
});
