import { afterEach, describe, expect, it } from '@jest/globals';
import type { RelayCaption, RelayGap } from '@live-captions/protocol';
import { createPublisher, createReader } from '@live-captions/relay-client/node';
import { relayPerTest, SOURCE, TOKENS, until } from './helpers.js';

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
});
