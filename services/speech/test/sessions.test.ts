import { describe, expect, it } from '@jest/globals';
import { StreamSessions } from '../src/domain/sessions.js';

const response = (body: string) => ({ status: 200, contentType: 'application/json', body });

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('StreamSessions', () => {
  it('admits up to maxStreams sessions, idle ones included, until they expire after 120 s', () => {
    const time = clock();
    const sessions = new StreamSessions({ maxStreams: 2, now: time.now });
    const a = sessions.admit('stream-a');
    const b = sessions.admit('stream-b');
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    sessions.release(a.session);
    sessions.release(b.session);
    expect(sessions.admit('stream-c')).toEqual({ ok: false, reason: 'capacity' });
    time.advance(119_999);
    expect(sessions.admit('stream-c')).toEqual({ ok: false, reason: 'capacity' });
    time.advance(1);
    expect(sessions.admit('stream-c').ok).toBe(true);
    expect(sessions.size).toBe(1);
  });

  it('never expires a busy session, and refuses a second request on it', () => {
    const time = clock();
    const sessions = new StreamSessions({ maxStreams: 4, now: time.now });
    const first = sessions.admit('stream-a');
    time.advance(10 * 60_000);
    expect(sessions.admit('stream-a')).toEqual({ ok: false, reason: 'busy' });
    expect(sessions.size).toBe(1);
    expect(sessions.busyCount).toBe(1);
    if (first.ok) sessions.release(first.session);
    expect(sessions.admit('stream-a').ok).toBe(true);
  });

  it('closes idle and unknown sessions, forgetting their cache, but not busy ones', () => {
    const sessions = new StreamSessions({ maxStreams: 4 });
    const admitted = sessions.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    sessions.store(admitted.session, 'request-1', 'sig', response('{}'));
    expect(sessions.close('stream-a')).toBe('busy');
    sessions.release(admitted.session);
    expect(sessions.close('stream-a')).toBe('closed');
    expect(sessions.close('never-seen')).toBe('closed');
    const again = sessions.admit('stream-a');
    if (!again.ok) throw new Error('not admitted');
    expect(sessions.lookup(again.session, 'request-1', 'sig')).toEqual({ kind: 'miss' });
  });

  it('answers cached results by request ID and signature, and conflicts on a different signature', () => {
    const time = clock();
    const sessions = new StreamSessions({ maxStreams: 4, now: time.now });
    const admitted = sessions.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    const { session } = admitted;
    sessions.store(session, 'request-1', 'sig-1', response('one'));
    sessions.store(session, '', 'sig-x', response('uncached'));
    expect(sessions.lookup(session, 'request-1', 'sig-1')).toEqual({
      kind: 'hit',
      response: response('one'),
    });
    expect(sessions.lookup(session, 'request-1', 'sig-2')).toEqual({ kind: 'conflict' });
    expect(sessions.lookup(session, '', 'sig-x')).toEqual({ kind: 'miss' });
    time.advance(120_000);
    expect(sessions.lookup(session, 'request-1', 'sig-1')).toEqual({ kind: 'miss' });
  });

  it('keeps at most 64 results per stream, dropping the oldest', () => {
    const sessions = new StreamSessions({ maxStreams: 1 });
    const admitted = sessions.admit('stream-a');
    if (!admitted.ok) throw new Error('not admitted');
    for (let i = 0; i < 65; i += 1)
      sessions.store(admitted.session, `request-${i}`, 'sig', response(String(i)));
    expect(sessions.lookup(admitted.session, 'request-0', 'sig')).toEqual({ kind: 'miss' });
    expect(sessions.lookup(admitted.session, 'request-1', 'sig').kind).toBe('hit');
    expect(sessions.lookup(admitted.session, 'request-64', 'sig').kind).toBe('hit');
  });

  it('drops temporary sessions when their request ends and caches nothing for them', () => {
    const sessions = new StreamSessions({ maxStreams: 1 });
    const admitted = sessions.admit('v1-temp', true);
    if (!admitted.ok) throw new Error('not admitted');
    sessions.store(admitted.session, 'request-1', 'sig', response('x'));
    expect(sessions.lookup(admitted.session, 'request-1', 'sig')).toEqual({ kind: 'miss' });
    sessions.release(admitted.session);
    expect(sessions.size).toBe(0);
    expect(sessions.admit('other-stream').ok).toBe(true);
  });
});
