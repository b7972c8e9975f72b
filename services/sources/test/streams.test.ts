/**
 * Stream sources end to end, every part real: nginx-rtmp and a local HTTP server as the media
 * servers, ffmpeg publishers playing the committed speech fixture, the gateway on the synthetic
 * speech model, the relay, and the sources service as a process. Slow scenarios run once.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { freePort, killAll } from '@live-captions/test-services';
import {
  api,
  type Base,
  createDatabase,
  finals,
  makeCertificates,
  publish,
  ROOM,
  type Running,
  SPEECH_CLIP,
  sleep,
  startBase,
  startIcecast,
  startMediaServer,
  startRtspServer,
  startSources,
  until,
} from './helpers/stack.js';

jest.setTimeout(240_000);

let base: Base;
let sources: Running;
let rtmpPort: number;
let srtFirst: number;
let sourcesEnv: Record<string, string>;

const settings = { language: 'en', mode: 'transcribe' };
const ofSource = (id: string, label?: string) =>
  finals(base.captions, label).filter((c) => String(c.id).startsWith(`${id.slice(0, 8)}-`));
const source = async (id: string) =>
  (await api(sources.port, 'GET', `/sources/${id}`)).json.source as Record<string, any>;

const tls = makeCertificates();

beforeAll(async () => {
  base = await startBase();
  rtmpPort = await freePort();
  srtFirst = 20_000 + Math.floor(Math.random() * 20_000);
  sourcesEnv = {
    DATABASE_URL: await createDatabase(),
    SOURCES_RTMP_PORT: String(rtmpPort),
    SOURCES_SRT_PORTS: `${srtFirst}-${srtFirst + 3}`,
    SOURCES_STALL_SECONDS: '4',
    SOURCES_CA_FILE: tls.caFile,
  };
  sources = await startSources(base, sourcesEnv);
}, 120_000);

afterAll(async () => {
  if (sources) await killAll([sources.proc]);
  await base?.stop();
});

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

describe('pull: RTMPS', () => {
  test('an RTMP server behind TLS (a certificate the CA file vouches for) is captioned', async () => {
    const media = await startMediaServer();
    const publisher = publish(`rtmp://127.0.0.1:${media.port}/live/secure-key-123456`, 'flv');
    // TLS in front of nginx-rtmp, as a media server's RTMPS port (or a TLS proxy before it) is.
    const terminator = createTlsServer(tls.trusted, (socket) => {
      const upstream = connect(media.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      for (const end of [socket, upstream]) end.on('error', () => [socket, upstream].map((s) => s.destroy()));
    });
    await new Promise<void>((resolve) => terminator.listen(0, '127.0.0.1', resolve));
    const { port } = terminator.address() as { port: number };
    try {
      const added = await api(sources.port, 'POST', '/sources', {
        room: ROOM,
        name: 'Studio over RTMPS',
        input: { kind: 'pull', url: `rtmps://127.0.0.1:${port}/live/secure-key-123456` },
        settings,
      });
      expect(added.status).toBe(201);
      const id = added.json.source.id as string;
      await until('captions from the RTMPS stream', () => ofSource(id).length >= 2, 60_000);
      expect((await source(id)).state).toBe('live');
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    } finally {
      terminator.close();
      await publisher.stop();
      await media.stop();
    }
  });
});

describe('pull: a radio station’s Icecast feed', () => {
  test('plain HTTP audio (MP3 from a real Icecast) is captioned into the source room', async () => {
    const icecast = await startIcecast();
    const publisher = publish(icecast.mount, 'mp3');
    try {
      const added = await api(sources.port, 'POST', '/sources', {
        room: ROOM,
        name: 'Community radio',
        input: { kind: 'pull', url: `http://127.0.0.1:${icecast.port}/live` },
        settings,
      });
      expect(added.status).toBe(201);
      const id = added.json.source.id as string;
      await until('captions from the Icecast feed', () => ofSource(id).length >= 2, 60_000);
      expect((await source(id)).state).toBe('live');
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    } finally {
      await publisher.stop();
      await icecast.stop();
    }
  });
});

describe('pull: a room camera’s RTSP', () => {
  test('RTSP (interleaved over TCP) is captioned into the source room', async () => {
    const camera = await startRtspServer();
    try {
      const added = await api(sources.port, 'POST', '/sources', {
        room: ROOM,
        name: 'Room camera',
        input: { kind: 'pull', url: camera.url },
        settings,
      });
      expect(added.status).toBe(201);
      const id = added.json.source.id as string;
      await until('captions from the RTSP stream', () => ofSource(id).length >= 2, 60_000);
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    } finally {
      await camera.stop();
    }
  });
});

describe('pull over HTTPS: the certificate is verified', () => {
  test('a server whose certificate the CA file vouches for is captioned; a self-signed one is refused and asked nothing', async () => {
    const asked = { trusted: 0, selfSigned: 0 };
    const servers = await Promise.all(
      (['trusted', 'selfSigned'] as const).map(async (which) => {
        const server = createHttpsServer(tls[which], (_req, res) => {
          asked[which] += 1;
          res.writeHead(200, { 'Content-Type': 'audio/wav' }).end(readFileSync(SPEECH_CLIP));
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return server;
      }),
    );
    try {
      const add = async (server: (typeof servers)[number]) => {
        const { port } = server.address() as { port: number };
        const added = await api(sources.port, 'POST', '/sources', {
          room: ROOM,
          name: 'A recording over HTTPS',
          input: { kind: 'pull', url: `https://127.0.0.1:${port}/meeting.wav` },
          settings,
        });
        expect(added.status).toBe(201);
        return added.json.source.id as string;
      };
      const trusted = await add(servers[0]!);
      const selfSigned = await add(servers[1]!);
      await until('captions from the trusted server', () => ofSource(trusted).length >= 2, 60_000);
      await until(
        'the self-signed certificate refused',
        async () => /certificate/i.test((await source(selfSigned)).reason ?? ''),
        30_000,
      );
      expect(ofSource(selfSigned)).toEqual([]);
      expect(asked.selfSigned).toBe(0);
      expect(asked.trusted).toBeGreaterThan(0);
      for (const id of [trusted, selfSigned])
        expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    } finally {
      for (const server of servers) server.close();
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

describe('HLS and safety', () => {
  let dir: string;
  const servers: Server[] = [];
  const requests: Record<string, string[]> = { allowed: [], unlisted: [] };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sources-hls-'));
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-i',
      SPEECH_CLIP,
      '-c:a',
      'aac',
      '-f',
      'hls',
      '-hls_time',
      '2',
      '-hls_list_size',
      '0',
      '-hls_playlist_type',
      'vod',
      join(dir, 'index.m3u8'),
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.ts')).length).toBeGreaterThan(3);
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  const serve = async (host: string, log: string[]) => {
    const server = createServer((req, res) => {
      log.push(req.url ?? '');
      try {
        res.end(readFileSync(join(dir, (req.url ?? '').replace(/^\/+/, '').split('?')[0] ?? '')));
      } catch {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    servers.push(server);
    return (server.address() as { port: number }).port;
  };

  test('an HLS playlist is captioned; a playlist pointing at file:// or an unlisted loopback host reads nothing', async () => {
    const port = await serve('127.0.0.1', requests.allowed!);
    const unlisted = await serve('127.0.0.2', requests.unlisted!);
    const playlist = readFileSync(join(dir, 'index.m3u8'), 'utf8');
    writeFileSync(join(dir, 'evil.m3u8'), playlist.replace(/^index/gm, `http://127.0.0.2:${unlisted}/index`));
    writeFileSync(
      join(dir, 'file.m3u8'),
      '#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nfile:///etc/passwd\n#EXTINF:2.0,\nindex0.ts\n#EXT-X-ENDLIST\n',
    );

    // Refused before anything runs: other schemes, and hosts the operator did not list.
    for (const url of [
      'file:///etc/passwd',
      'concat:/etc/passwd|/etc/hosts',
      'subfile:,start,0,end,0,:/etc/passwd',
      'data:audio/wav;base64,AAAA',
      `http://127.0.0.2:${unlisted}/index.m3u8`,
      'http://[::1]/x.m3u8',
      'rtmp://10.1.2.3/live/x',
    ]) {
      const refused = await api(sources.port, 'POST', '/sources', {
        room: ROOM,
        name: 'x',
        input: { kind: 'pull', url },
        settings,
      });
      expect(`${url} ${refused.status} ${refused.json.error?.code}`).toBe(`${url} 422 source_refused`);
    }

    const add = async (name: string) =>
      (
        await api(sources.port, 'POST', '/sources', {
          room: ROOM,
          name,
          input: { kind: 'pull', url: `http://127.0.0.1:${port}/${name}` },
          settings,
        })
      ).json.source.id as string;
    const good = await add('index.m3u8');
    const evil = await add('evil.m3u8');
    const file = await add('file.m3u8');
    await until('captions from the HLS playlist', () => ofSource(good).length >= 2, 60_000);
    expect((await source(good)).state).toBe('live');
    await until(
      'the unlisted host refused',
      async () => /refused: .*127\.0\.0\.2.*SOURCES_ALLOWED_HOSTS/.test((await source(evil)).reason ?? ''),
      30_000,
    );
    for (const id of [evil, file]) {
      const view = await source(id);
      expect(`${id} ${view.state}`).not.toBe(`${id} live`);
      expect(ofSource(id)).toEqual([]);
    }
    // The unlisted server was never asked for anything; the allowed one served the playlists only
    // (the file playlist's second segment is never reached: its first is refused).
    expect(requests.unlisted).toEqual([]);
    for (const id of [good, evil, file])
      expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
  });
});
