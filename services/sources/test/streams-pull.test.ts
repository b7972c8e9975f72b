/**
 * Stream sources pulling the other inputs an event meets, every part real (see streams.test.ts):
 * RTMPS through a TLS terminator before nginx-rtmp, a radio station's Icecast (MP3), a room
 * camera's RTSP (GStreamer's server), and HTTPS whose certificate is verified against the CA file.
 */

import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { connect } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { publish, startIcecast, startMediaServer, startRtspServer } from './helpers/media.js';
import { api, type Base, ROOM, type Running, SPEECH_CLIP, until } from './helpers/stack.js';
import {
  type Streams,
  settings,
  sourceFinals,
  sourceView,
  startStreams,
  stopStreams,
} from './helpers/streams.js';

jest.setTimeout(240_000);

let base: Base;
let sources: Running;
let tls: Streams['tls'];

const ofSource = (id: string, label?: string) => sourceFinals(base, id, label);
const source = (id: string) => sourceView(sources, id);

beforeAll(async () => {
  ({ base, sources, tls } = await startStreams());
}, 120_000);

afterAll(() => stopStreams(base, sources));

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
