import { describe, expect, it } from '@jest/globals';
import { Streams } from '../src/domain/streams.js';

const response = (body: string) => ({ status: 200, contentType: 'application/json', body });

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('Streams', () => {
  it('admits up to maxStreams streams, idle ones included, until they expire after 120 s', () => {
    const time = clock();
    const streams = new Streams({ maxStreams: 2, now: time.now });
    const a = streams.admit('stream-a');
    const b = streams.admit('stream-b');
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    streams.release(a.stream);
    streams.release(b.stream);
    expect(streams.admit('stream-c')).toEqual({ ok: false, reason: 'capacity' });
    time.advance(119_999);
    expect(streams.admit('stream-c')).toEqual({ ok: false, reason: 'capacity' });
    time.advance(1);
    expect(streams.admit('stream-c').ok).toBe(true);
    expect(streams.size).toBe(1);
  });

  it('never expires a busy stream, and refuses a second request on it', () => {
    const time = clock();
    const streams = new Streams({ maxStreams: 4, now: time.now });
    const first = streams.admit('stream-a');
    time.advance(10 * 60_000);
    expect(streams.admit('stream-a')).toEqual({ ok: false, reason: 'busy' });
    expect(streams.size).toBe(1);
    expect(streams.busyCount).toBe(1);
    if (first.ok) streams.release(first.stream);
    expect(streams.admit('stream-a').ok).toBe(true);
  });

  it('closes idle and unknown streams, forgetting their cache, but not busy ones', () => {
    const streams = new Streams({ maxStreams: 4 });
    const admitted = streams.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    streams.store(admitted.stream, 'request-1', 'sig', response('{}'));
    expect(streams.close('stream-a')).toBe('busy');
    streams.release(admitted.stream);
    expect(streams.close('stream-a')).toBe('closed');
    expect(streams.close('never-seen')).toBe('closed');
    const again = streams.admit('stream-a');
    if (!again.ok) throw new Error('not admitted');
    expect(streams.lookup(again.stream, 'request-1', 'sig')).toEqual({ kind: 'miss' });
  });

  it('answers cached results by request ID and signature, and conflicts on a different signature', () => {
    const time = clock();
    const streams = new Streams({ maxStreams: 4, now: time.now });
    const admitted = streams.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    const { stream } = admitted;
    streams.store(stream, 'request-1', 'sig-1', response('one'));
    streams.store(stream, '', 'sig-x', response('uncached'));
    expect(streams.lookup(stream, 'request-1', 'sig-1')).toEqual({
      kind: 'hit',
      response: response('one'),
    });
    expect(streams.lookup(stream, 'request-1', 'sig-2')).toEqual({ kind: 'conflict' });
    expect(streams.lookup(stream, '', 'sig-x')).toEqual({ kind: 'miss' });
    time.advance(120_000);
    expect(streams.lookup(stream, 'request-1', 'sig-1')).toEqual({ kind: 'miss' });
  });

  it('keeps at most 64 results per stream, dropping the oldest', () => {
    const streams = new Streams({ maxStreams: 1 });
    const admitted = streams.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    for (let i = 0; i < 65; i += 1)
      streams.store(admitted.stream, `request-${i}`, 'sig', response(String(i)));
    expect(streams.lookup(admitted.stream, 'request-0', 'sig')).toEqual({ kind: 'miss' });
    expect(streams.lookup(admitted.stream, 'request-1', 'sig').kind).toBe('hit');
    expect(streams.lookup(admitted.stream, 'request-64', 'sig').kind).toBe('hit');
  });

  it('drops temporary streams when their request ends and caches nothing for them', () => {
    const streams = new Streams({ maxStreams: 1 });
    const admitted = streams.admit('v1-temp', true);
    if (!admitted.ok) throw new Error('not admitted');
    streams.store(admitted.stream, 'request-1', 'sig', response('x'));
    expect(streams.lookup(admitted.stream, 'request-1', 'sig')).toEqual({ kind: 'miss' });
    streams.release(admitted.stream);
    expect(streams.size).toBe(0);
    expect(streams.admit('other-stream').ok).toBe(true);
  });
});
