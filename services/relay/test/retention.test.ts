// Retention (issue 36): per room by time and bytes, in memory and in Redis (cluster mode), with the
// time each caption was taken (`at`); and a reader's own bound on its replay (`join.replayMs`),
// so that a 30-minute history does not flood an audience's phones.
import { describe, expect, it } from '@jest/globals';
import type { RelayCaption, RelayJoined } from '@live-captions/protocol';
import { runRedisUrl } from '@live-captions/test-services';
import { Redis } from 'ioredis';
import { Retention, RoomLog } from '../src/domain/history.js';
import { DEFAULT_LIMITS } from '../src/domain/limits.js';
import {
  captionsOf,
  cleanups,
  finals,
  node,
  range,
  sequences,
  texts,
  uniquePrefix,
} from './cluster-helpers.js';
import { Client, publishAll, relayPerTest, SOURCE, TOKENS } from './helpers.js';

const MINUTE = 60_000;
const start = relayPerTest();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('retention with the default limits', () => {
  it('keeps a room’s captions for 30 minutes, whatever the other rooms hold', () => {
    const retention = new Retention(DEFAULT_LIMITS);
    const room = new RoomLog('e');
    const other = new RoomLog('e');
    // 30 minutes of a reviewed room (a 200-byte frame every 2 s), beside a busy source room (a
    // 300-byte interim 4 times a second).
    for (let at = 0; at < 30 * MINUTE; at += 250) {
      if (at % 2000 === 0) retention.append(room, { at, frame: Buffer.alloc(200), delivery: `r:${at}` });
      retention.append(other, { at, frame: Buffer.alloc(300), delivery: `o:${at}` });
    }
    retention.expire(room, 30 * MINUTE - 1000);
    expect(room.entries[0]?.at).toBe(0);
    expect(room.entries).toHaveLength(900);
    retention.expire(room, 31 * MINUTE);
    expect(room.entries[0]?.at).toBe(MINUTE + 2000);
    expect(other.entries.length).toBeGreaterThan(7000);
  });
});

describe('join.replayMs: a reader bounds its replay in time', () => {
  it('a fresh join gets the recent captions, an older cursor skips to them (a gap), a recent one does not', async () => {
    const { url } = await start();
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(3, 'old'));
    await pause(400);
    const recentFrom = Date.now();
    await publishAll(writer, texts(2, 'new'), 'publisher_00000002');
    const replayMs = Date.now() - recentFrom + 200;

    const fresh = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    expect(fresh.frames[0]).toMatchObject({ gap: false, next: 6 });
    const bounded = await Client.open(url);
    bounded.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, replayMs });
    await bounded.count(3);
    expect(bounded.frames[0]).toMatchObject({ gap: false, next: 4 });
    expect(finals(bounded)).toEqual(texts(2, 'new'));

    const { epoch } = fresh.frames[0] as RelayJoined;
    const behind = await Client.open(url);
    behind.send({
      protocol: 2,
      join: SOURCE,
      role: 'read',
      token: TOKENS.sourceRead,
      replayMs,
      cursor: { epoch, sequence: 1 },
    });
    await behind.count(3);
    expect(behind.frames[0]).toMatchObject({ gap: 'history-expired', next: 4 });
    expect(sequences(behind)).toEqual([4, 5]);

    const recent = await Client.open(url);
    recent.send({
      protocol: 2,
      join: SOURCE,
      role: 'read',
      token: TOKENS.sourceRead,
      replayMs: 60_000,
      cursor: { epoch, sequence: 1 },
    });
    await recent.count(5);
    expect(recent.frames[0]).toMatchObject({ gap: false, next: 2 });
    expect(sequences(recent)).toEqual([2, 3, 4, 5]);
    for (const client of [writer, fresh, bounded, behind, recent]) client.close();
  });

  it('refuses a replayMs that is not a whole number of milliseconds', async () => {
    const { url } = await start();
    const client = await Client.open(url);
    client.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, replayMs: -1 });
    expect(await client.closed).toEqual({
      code: 1008,
      reason: 'replayMs must be a whole number of milliseconds',
    });
  });
});

describe('retention in Redis (cluster mode)', () => {
  it('trims each room’s stream to its bytes, keeps the byte count right, and says when each caption was taken', async () => {
    const prefix = uniquePrefix();
    const redis = new Redis(runRedisUrl());
    cleanups.push(() => redis.disconnect());
    // Bodies of about 440 bytes (Redis counts bodies), frames of about 510 (nodes count frames): four
    // fit in 2100 either way, five in neither.
    const limits = { payloadBytes: 1024, replayRoomBytes: 2100 };
    const a = await node(runRedisUrl(), prefix, { id: 'a', limits });
    const writer = await Client.join(a.url, SOURCE, 'write', TOKENS.sourceWrite);
    const reader = await Client.join(a.url, SOURCE, 'read', TOKENS.sourceRead);
    const long = (n: number) => `caption ${n} ${'x'.repeat(400)}`;
    const before = Date.now();
    // One at a time, each read before the next: with a room bound this small (four captions), a
    // burst is trimmed from the stream before the node's fan-out has read it, and its live reader
    // gets a history-expired gap (with the default 4 MiB per room a burst that size is far off).
    for (const n of range(1, 12)) {
      writer.send({
        msg: true,
        final: long(n),
        id: n,
        delivery: { client: 'publisher_000000001', sequence: n },
      });
      await writer.count(n + 1);
      await reader.count(n + 1);
    }
    const captions = captionsOf(reader) as (RelayCaption & { at: number })[];
    for (const caption of captions)
      expect(caption.at >= before - 50 && caption.at <= Date.now() + 50).toBe(true);

    const log = `${prefix}{${SOURCE}}:log`;
    const entries = (await redis.xrange(log, '-', '+')) as [string, string[]][];
    const bodies = entries.map(([, fields]) => fields[fields.indexOf('b') + 1]!);
    const held = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    expect(entries.length).toBe(4);
    expect(Number(await redis.get(`${prefix}{${SOURCE}}:bytes`))).toBe(held);
    expect(held).toBeLessThanOrEqual(2100);
    // The stream entry's time is the caption's `at`, on every node.
    expect(entries.map(([id]) => Number(id.split('-')[0]))).toEqual(captions.slice(-4).map((c) => c.at));
    // A node that starts now holds the same four; a cursor before them is a gap.
    const b = await node(runRedisUrl(), prefix, { id: 'b', limits });
    const { epoch } = reader.frames[0] as RelayJoined;
    const late = await Client.join(b.url, SOURCE, 'read', TOKENS.sourceRead, { epoch, sequence: 2 });
    expect(late.frames[0]).toMatchObject({ gap: 'history-expired', next: 9 });
    await late.count(5);
    expect(sequences(late)).toEqual(range(9, 12));
    expect((captionsOf(late) as { at: number }[]).map((c) => c.at)).toEqual(
      captions.slice(-4).map((c) => c.at),
    );
    for (const client of [writer, reader, late]) client.close();
  });
});
