/**
 * Stream sources end to end, every part real: nginx-rtmp as the media server, ffmpeg publishers
 * playing the committed speech fixture, the gateway on the synthetic speech model, the relay, and
 * the sources service as a process: an RTMP pull through a drop, RTMP and SRT pushes, a crash of
 * the service. The other pulled inputs: streams-pull.test.ts; HLS and the address rules:
 * streams-hls.test.ts. Slow scenarios run once.
 */

import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { killAll } from '@live-captions/test-services';
import { publish, startMediaServer } from './helpers/media.js';
import { api, type Base, ROOM, type Running, sleep, startSources, until } from './helpers/stack.js';
import { settings, sourceFinals, sourceView, startStreams, stopStreams } from './helpers/streams.js';

jest.setTimeout(240_000);

let base: Base;
let sources: Running;
let rtmpPort: number;
let srtFirst: number;
let sourcesEnv: Record<string, string>;

const ofSource = (id: string, label?: string) => sourceFinals(base, id, label);
const source = (id: string) => sourceView(sources, id);

beforeAll(async () => {
  ({ base, sources, rtmpPort, srtFirst, sourcesEnv } = await startStreams());
}, 120_000);

afterAll(() => stopStreams(base, sources));

describe('pull: a stream on a media server', () => {
  test('RTMP: captions reach the source room; a 20 s drop mid-speech resumes by itself with a gap marker, nothing twice', async () => {
    const media = await startMediaServer();
    const streamUrl = `rtmp://127.0.0.1:${media.port}/live/stage-key-123456`;
    let publisher = publish(streamUrl, 'flv');
    try {
      const added = await api(sources.port, 'POST', '/sources', {
        room: ROOM,
        name: 'Council chamber',
        input: { kind: 'pull', url: streamUrl },
        settings,
      });
      expect(added.status).toBe(201);
      const id = added.json.source.id as string;
      // The stream key (the URL's last segment) is never shown whole.
      expect(added.json.source.input.url).not.toContain('stage-key-123456');
      expect(JSON.stringify(added.json)).not.toContain('stage-key-123456');
      await until('captions from the stream', () => ofSource(id).length >= 2, 60_000);
      expect((await source(id)).state).toBe('live');
      const before = ofSource(id).length;

      await publisher.stop();
      await sleep(20_000);
      const during = await source(id);
      expect(['reconnecting', 'failed']).toContain(during.state);
      expect(during.reason).toBeTruthy();
      publisher = publish(streamUrl, 'flv');

      await until('a gap marker', () => ofSource(id, 'gap').length > 0, 60_000);
      const gap = ofSource(id, 'gap')[0] as { final: string };
      const seconds = Number(/gap: ([\d.]+) s without sound/.exec(gap.final)?.[1]);
      console.log(`gap marked after the 20 s stop: ${seconds} s`);
      expect(seconds).toBeGreaterThanOrEqual(15);
      await until('captions after the drop', () => ofSource(id).length >= before + 2, 60_000);
      expect((await source(id)).state).toBe('live');
      // Nothing twice: every caption id once, numbered on across the drop.
      const ids = [...ofSource(id), ...ofSource(id, 'gap')].map((c) => String(c.id));
      expect(new Set(ids).size).toBe(ids.length);
      expect((await source(id)).captionsSent).toBeGreaterThanOrEqual(before + 2);
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    } finally {
      await publisher.stop();
      await media.stop();
    }
  });
});

describe('push: encoders send to our listeners', () => {
  test('RTMP and SRT with the source key are captioned; a wrong key is refused', async () => {
    const rtmp = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'OBS second output',
      input: { kind: 'rtmp-push' },
      settings,
    });
    const srt = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'Hardware encoder',
      input: { kind: 'srt-push' },
      settings,
    });
    expect([rtmp.status, srt.status]).toEqual([201, 201]);
    const rtmpKey = rtmp.json.push.streamKey as string;
    const srtKey = srt.json.push.streamKey as string;
    expect(rtmp.json.push.url).toBe(`rtmp://localhost:${rtmpPort}/live/${rtmpKey}`);
    // Listed and read again: the key never whole.
    const listed = JSON.stringify((await api(sources.port, 'GET', '/sources')).json);
    expect(listed).not.toContain(rtmpKey);
    expect(listed).not.toContain(srtKey);
    const srtPort = Number(/:(\d+)\?/.exec(srt.json.push.url)?.[1]);
    expect(srtPort).toBeGreaterThanOrEqual(srtFirst);

    const wrongRtmp = publish(`rtmp://127.0.0.1:${rtmpPort}/live/wrong-key-0000000000`, 'flv');
    const wrongSrt = publish(
      `srt://127.0.0.1:${srtPort}?passphrase=wrong-passphrase-000&pbkeylen=32`,
      'mpegts',
    );
    expect(await Promise.race([wrongRtmp.exited, sleep(15_000).then(() => 'still publishing')])).not.toBe(0);
    expect(await Promise.race([wrongSrt.exited, sleep(15_000).then(() => 'still publishing')])).not.toBe(0);
    await wrongRtmp.stop();
    await wrongSrt.stop();

    const encoders = [
      publish(`rtmp://127.0.0.1:${rtmpPort}/live/${rtmpKey}`, 'flv'),
      publish(`srt://127.0.0.1:${srtPort}?passphrase=${srtKey}&pbkeylen=32`, 'mpegts'),
    ];
    try {
      await until(
        'captions from both encoders',
        () => ofSource(rtmp.json.source.id).length >= 2 && ofSource(srt.json.source.id).length >= 2,
        60_000,
      );
      for (const id of [rtmp.json.source.id, srt.json.source.id])
        expect((await source(id)).state).toBe('live');
    } finally {
      for (const encoder of encoders) await encoder.stop();
    }
    for (const id of [rtmp.json.source.id, srt.json.source.id])
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
  });
});

describe('a crash of the service', () => {
  test('SIGKILLed and started again: its push listener is free again, the source resumes by itself, no caption id twice', async () => {
    const added = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'Chapel encoder',
      input: { kind: 'rtmp-push' },
      settings,
    });
    expect(added.status).toBe(201);
    const id = added.json.source.id as string;
    const url = `rtmp://127.0.0.1:${rtmpPort}/live/${added.json.push.streamKey}`;
    let encoder = publish(url, 'flv');
    try {
      await until('captions before the crash', () => ofSource(id).length >= 2, 60_000);
      await killAll([sources.proc]);
      // The listener dies with the service: the encoder loses its connection (and retries, as OBS does).
      expect(await Promise.race([encoder.exited, sleep(15_000).then(() => 'still publishing')])).not.toBe(
        'still publishing',
      );
      const before = ofSource(id).length;
      sources = await startSources(base, sourcesEnv);
      encoder = publish(url, 'flv');
      await until('captions after the restart', () => ofSource(id).length >= before + 2, 90_000);
      expect((await source(id)).state).toBe('live');
      const ids = [...ofSource(id), ...ofSource(id, 'gap')].map((c) => String(c.id));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await encoder.stop();
    }
    expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
  });
});
