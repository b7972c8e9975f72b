// The realtime capture session through a gateway outage (issue 26): it reconnects with backoff
// for as long as it takes, keeps capturing, sends the kept audio again and resumes by itself;
// beyond the bound the oldest audio is dropped and reported; a refusal stops sending, not
// capturing, and Retry or Discard continue the session.
import { describe, expect, test } from '@jest/globals';
import { REALTIME_RATE } from '../src/browser/lib/realtime-protocol.js';
import { committed, completed } from './helpers/realtime-events.js';
import { firstConnection, frame, send, serverPerTest, session } from './helpers/realtime-server.js';

const startServer = serverPerTest();

const audioOf = (connection: { audio: Int16Array[] }) =>
  Array.from(Int16Array.from(connection.audio.flatMap((chunk) => Array.from(chunk))));

describe('RealtimeSession through an outage', () => {
  test('refused ten times: keeps capturing, reconnects past the old three tries, resends and resumes', async () => {
    let refusals = 0;
    let refusing = false;
    const server = await startServer({ refuse: () => refusing && ++refusals <= 10 });
    // Retries take 1 ms here: the outage is held after the third refusal while the test looks
    // at the session, or the remaining refusals could all pass between two looks.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { current, statuses } = session(server.url, {}, () => (refusals >= 3 ? held : undefined));
    const first = await firstConnection(server);
    for (let i = 0; i < 40; i++) current.push(frame(i)); // 2 s
    await server.until(() => server.samples(first) >= 1.9 * REALTIME_RATE);
    refusing = true;
    first.socket.terminate();
    // The outage: 1 s more is spoken while every reconnect is refused.
    await server.until(() => refusals >= 3);
    for (let i = 40; i < 60; i++) current.push(frame(i));
    expect(current.status).toMatchObject({ state: 'capturing', retrying: true, maxBufferedSeconds: 120 });
    expect(current.status.message).toMatch(
      /^Speech service not answering \(the realtime connection could not be opened \(code 1006\)\); retrying in \d+\.\d s$/,
    );
    expect(current.hasPendingAudio).toBe(true);
    release();
    await server.until(() => server.connections.length === 2);
    expect(refusals).toBe(11);
    // No click: the new connection gets everything kept, then capture goes on over it.
    for (let i = 60; i < 100; i++) current.push(frame(i));
    const second = server.connections[1]!;
    await server.until(() => server.samples(second) >= 4.9 * REALTIME_RATE);
    const before = audioOf(first);
    expect(audioOf(second).slice(0, before.length)).toEqual(before);
    expect(current.status).toMatchObject({ state: 'capturing', retrying: false, droppedSeconds: 0 });
    expect(current.status.message).toBeUndefined();
    expect(statuses.some((status) => status.state === 'failed')).toBe(false);
    // The backoff grew past the old 0.5/1/2 s with each try.
    const waits = statuses
      .map((status) => /retrying in (\d+\.\d) s/.exec(status.message ?? '')?.[1])
      .filter((wait): wait is string => wait !== undefined)
      .map(Number);
    expect(waits.length).toBeGreaterThanOrEqual(11);
    expect(Math.max(...waits)).toBeGreaterThanOrEqual(8);
  });

  test('beyond the bound the oldest audio is dropped and reported, the rest resent', async () => {
    let refusing = false;
    const server = await startServer({ refuse: () => refusing });
    const gaps: number[] = [];
    const { current } = session(server.url, {
      maxBufferedSeconds: 1,
      onGap: (seconds) => gaps.push(seconds),
    });
    await firstConnection(server);
    refusing = true;
    server.connections[0]!.socket.terminate();
    await server.until(() => current.status.retrying);
    for (let i = 0; i < 40; i++) current.push(frame(i)); // 2 s against a 1 s bound
    const dropped = gaps.reduce((sum, seconds) => sum + seconds, 0);
    expect(dropped).toBeCloseTo(1, 1);
    expect(current.status.droppedSeconds).toBeCloseTo(dropped, 6);
    expect(current.status.bufferedSeconds).toBe(1);
    refusing = false;
    await server.until(() => server.connections.length === 2);
    const second = server.connections[1]!;
    for (let i = 40; i < 60; i++) current.push(frame(i));
    await server.until(() => server.samples(second) >= 1.9 * REALTIME_RATE);
    // What was kept is what goes out: the newest second, not the dropped one.
    expect(server.samples(second)).toBeLessThan(2.1 * REALTIME_RATE);
  });

  test('the backlog goes out paced: at most 3x the microphone, none while a transcript is awaited', async () => {
    let refusing = false;
    const server = await startServer({ refuse: () => refusing });
    const { current } = session(server.url);
    await firstConnection(server);
    refusing = true;
    server.connections[0]!.socket.terminate();
    await server.until(() => current.status.retrying);
    for (let i = 0; i < 100; i++) current.push(frame(i)); // 5 s kept
    refusing = false;
    await server.until(() => server.connections[1]?.events.length === 1);
    const second = server.connections[1]!;
    const sent = () => server.samples(second);
    const frameSamples = (REALTIME_RATE * 50) / 1000;
    // Each frame lets the backlog advance by three frames' worth, not all at once.
    current.push(frame(100));
    await server.until(() => sent() > 0);
    expect(sent()).toBeLessThanOrEqual(3 * frameSamples);
    // An utterance is committed: nothing more goes out until its transcript is in.
    send(second, committed('a'));
    await server.until(() => current.status.inFlight);
    const held = sent();
    for (let i = 101; i < 106; i++) current.push(frame(i));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent()).toBe(held);
    send(second, completed('a', 'one'));
    await server.until(() => !current.status.inFlight);
    current.push(frame(106));
    await server.until(() => sent() > held);
    expect(sent() - held).toBeLessThanOrEqual(3 * frameSamples);
    // Caught up (under 1 s behind): everything goes out again as it comes.
    for (let i = 107; i < 200; i++) current.push(frame(i));
    await server.until(() => sent() >= 9.9 * REALTIME_RATE);
  });

  test('a refusal (1008) stops sending, not capturing: Retry continues the session', async () => {
    const server = await startServer();
    const { current, finals } = session(server.url);
    await firstConnection(server);
    server.connections[0]!.socket.close(1008, 'idle_timeout');
    await server.until(() => current.status.state === 'failed');
    expect(current.status.message).toBe('idle_timeout');
    for (let i = 0; i < 10; i++) current.push(frame(i));
    expect(current.status.bufferedSeconds).toBeCloseTo(0.5, 1);
    expect(server.connections).toHaveLength(1);
    await current.retry();
    await server.until(
      () => (server.connections[1] ? server.samples(server.connections[1]) : 0) >= 0.45 * REALTIME_RATE,
    );
    expect(current.status.state).toBe('capturing');
    const again = server.connections[1]!;
    send(again, committed('a'));
    send(again, completed('a', 'kept'));
    await server.until(() => finals.length === 1);
    current.push(frame(10));
    expect(current.status.state).toBe('capturing');
  });

  test('Discard after a refusal forgets the kept audio and continues', async () => {
    const server = await startServer();
    const { current } = session(server.url);
    await firstConnection(server);
    server.connections[0]!.socket.close(1008, 'refused');
    await server.until(() => current.status.state === 'failed');
    for (let i = 0; i < 10; i++) current.push(frame(i));
    await current.discard();
    expect(current.status).toMatchObject({ state: 'capturing', bufferedSeconds: 0 });
    await server.until(() => server.connections[1]?.events.length === 1);
    for (let i = 10; i < 14; i++) current.push(frame(i));
    await server.until(() => server.samples(server.connections[1]!) >= 0.15 * REALTIME_RATE);
    expect(server.samples(server.connections[1]!)).toBeLessThan(0.25 * REALTIME_RATE);
  });
});
