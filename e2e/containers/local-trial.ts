import { appendFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { RelayPublisher, RelayReader, type SocketConstructor } from '@live-captions/relay-client';
import {
  apiKeyIn,
  CALENDAR_TOKEN,
  checkSecretOwners,
  compose,
  figures,
  grantCalendarWriter,
  imageIds,
  LOCAL_PROJECT,
  MODEL_SETTINGS,
  must,
  PROJECT,
  placeModel,
  projectContainers,
  projectObjects,
  psql,
  repoRoot,
  waitHealthy,
  work,
} from './harness.js';
import { archiveRoundTrip, outputRoomIn } from './outputs.js';
import { EVENT, LOCAL, realtimeTurn, transcriptionBody, upgradeStatus } from './requests.js';
import { apertiumTargetThroughOutputs, pushedStreamCaptioned, translateFromOutputs } from './streams.js';

const { WebSocket } = createRequire(join(repoRoot, 'packages/relay-client/package.json'))('ws') as {
  WebSocket: SocketConstructor;
};

/** The local trial: `make local-secrets local-up`, reached through its published ports. */
export function describeLocalTrial(builtImages: () => Record<string, string>): void {
  describe('the local trial (make local-secrets local-up)', () => {
    let apiKey: string;

    beforeAll(async () => {
      must('make', ['local-secrets']);
      grantCalendarWriter(join(work, 'secrets/local'));
      appendFileSync(join(work, 'compose/local.env'), MODEL_SETTINGS);
      compose(true, ['up', '--no-start']);
      placeModel(LOCAL_PROJECT);
      const started = Date.now();
      must('make', ['local-up', `PROJECT=${PROJECT}`]);
      await waitHealthy(LOCAL_PROJECT, 10);
      // `make local-up` builds first: with the operator's files (env, secrets) changed and no source
      // change, every layer comes from the cache.
      expect(imageIds()).toEqual(builtImages());
      figures.push(`local stack: up and healthy in ${((Date.now() - started) / 1000).toFixed(0)} s`);
      apiKey = apiKeyIn(join(work, 'secrets/local'));
    });

    it('writes secrets/local/ owned by uid 1000, apart from production’s secrets/', () => {
      checkSecretOwners(join(work, 'secrets/local'));
      expect(existsSync(join(work, 'secrets/relay.private.json'))).toBe(false);
    });

    it('runs each container with its memory limit, Redis with maxmemory, and project-scoped volumes', () => {
      const [worker] = projectContainers(LOCAL_PROJECT, 'worker');
      const memory = must('docker', ['inspect', '--format', '{{.HostConfig.Memory}}', worker!]);
      expect(Number(memory)).toBe(3 * 1024 ** 3);
      // Redis refuses writes past maxmemory instead of evicting BullMQ's keys.
      const redis = compose(true, ['exec', '-T', 'redis', 'redis-cli', 'config', 'get', 'maxmemory*']);
      expect(redis.split('\n').map((line) => line.trim())).toEqual(
        expect.arrayContaining(['maxmemory', String(256 * 1024 ** 2), 'maxmemory-policy', 'noeviction']),
      );
      expect(projectObjects('volume', LOCAL_PROJECT).sort()).toEqual(
        ['models', 'postgres-data', 'redis-data', 'acme'].map((name) => `${LOCAL_PROJECT}_${name}`).sort(),
      );
    });

    it('speech: /health wants the token and reports the worker’s model', async () => {
      expect((await fetch(`${LOCAL.speech}/health`)).status).toBe(401);
      const health = await fetch(`${LOCAL.speech}/health`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(health.status).toBe(200);
      expect(JSON.stringify(await health.json())).toContain('synthetic');
    });

    it('speech: a /v1 transcription goes through Redis to the worker container', async () => {
      const { contentType, body } = transcriptionBody();
      const response = await fetch(`${LOCAL.speech}/v1/audio/transcriptions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': contentType },
        body: new Uint8Array(body),
      });
      expect(response.status).toBe(200);
      // Decoded by the worker container: the speech image has no whisper.cpp addon at all.
      expect(((await response.json()) as { text: string }).text.trim().toLowerCase()).toContain('test');
    });

    it('speech: a realtime session, its VAD in the gateway container, decoded by the worker', async () => {
      const { types, transcript } = await realtimeTurn(
        WebSocket as never,
        'ws://127.0.0.1:8765/v1/realtime?intent=transcription',
        apiKey,
      );
      expect(types.slice(0, 2)).toEqual(['session.created', 'session.updated']);
      const order = ['speech_started', 'speech_stopped', 'committed'].map((type) =>
        types.indexOf(`input_audio_buffer.${type}`),
      );
      expect(order.every((at, i) => at > (order[i - 1] ?? 1))).toBe(true);
      expect(transcript.trim().toLowerCase()).toContain('test');
    });

    it('speech: serves the capture page', async () => {
      const page = await fetch(`${LOCAL.speech}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
    });

    it('relay: refuses foreign origins, and a caption goes from a publisher to a reader', async () => {
      expect(await upgradeStatus(`${LOCAL.relay}/ws`, 'https://evil.example')).toBe(403);
      expect(await upgradeStatus(`${LOCAL.relay}/ws`, 'http://localhost:8081')).toBe(101);
      const config = await fetch(`${LOCAL.speech}/relay-config`, {
        headers: { Authorization: `Bearer ${apiKey}`, Origin: 'http://localhost:8081' },
      });
      expect(config.status).toBe(200);
      const relay = (await config.json()) as {
        relayUrl: string;
        sourceRoom: string;
        sourceReadToken: string;
        sourceWriteToken: string;
      };
      expect(relay.relayUrl).toMatch(/^ws:\/\/localhost:8080(\/ws)?$/);
      const url = 'ws://127.0.0.1:8080/ws';
      const received: string[] = [];
      const reader = new RelayReader({
        url,
        room: relay.sourceRoom,
        token: relay.sourceReadToken,
        WebSocket,
        onCaption: (caption) => {
          if ('final' in caption && caption.final) received.push(caption.final);
        },
      });
      const publisher = new RelayPublisher({
        url,
        room: relay.sourceRoom,
        token: relay.sourceWriteToken,
        WebSocket,
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(publisher.publish({ final: 'from the container test', id: 1 })).toBe(true);
        const deadline = Date.now() + 10_000;
        while (received.length === 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(received).toEqual(['from the container test']);
      } finally {
        reader.close();
        publisher.close();
      }
    });

    it('relay: a caption room made through its rooms API is served at once, then removed', async () => {
      const headers = { Authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const created = await fetch('http://127.0.0.1:8080/rooms', {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Container room' }),
      });
      expect(created.status).toBe(201);
      const { room } = (await created.json()) as {
        room: { id: string; sourceRoom: string; tokens: { sourceWrite: string } };
      };
      const publisher = new RelayPublisher({
        url: 'ws://127.0.0.1:8080/ws',
        room: room.sourceRoom,
        token: room.tokens.sourceWrite,
        WebSocket,
      });
      try {
        // The relay acknowledges it: the room is served (a refused join would never ack).
        expect(publisher.publish({ final: 'in a new room', id: 1 })).toBe(true);
        const deadline = Date.now() + 10_000;
        while (publisher.queued > 0 && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 100));
        expect(publisher.queued).toBe(0);
        const listed = await fetch('http://127.0.0.1:8080/public/rooms');
        expect(((await listed.json()) as { rooms: { id: string }[] }).rooms.map((r) => r.id)).toContain(
          room.id,
        );
      } finally {
        publisher.close();
      }
      const removed = await fetch(`http://127.0.0.1:8080/rooms/${room.id}`, { method: 'DELETE', headers });
      expect(removed.status).toBe(204);
    });

    it('ui: the home page (links hub) and /site-config.js', async () => {
      const home = await fetch(`${LOCAL.ui}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('<title>Links · Live captions</title>');
      const site = await (await fetch(`${LOCAL.ui}/site-config.js`)).text();
      expect(site).toContain('"relayUrl":"ws://localhost:8080/ws"');
      expect(site).toContain('"captureUrl":"http://localhost:8765/"');
      expect(site).toContain('"calendarApiUrl":"http://localhost:8082/wp-json/cal/events/v1/"');
    });

    it('outputs: an archive destination keeps a caption of the output room, downloaded as WebVTT', async () => {
      const health = await fetch(`${LOCAL.outputs}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ db: 'ok', redis: 'ok' });
      const room = outputRoomIn(join(work, 'secrets/local'));
      const text = 'Archived by the container test';
      const { cues, rows } = await archiveRoundTrip(
        true,
        LOCAL.outputs,
        'ws://127.0.0.1:8080/ws',
        room,
        text,
        WebSocket,
      );
      expect(cues.map((cue) => cue.text)).toEqual([text]);
      expect(Number(rows)).toBeGreaterThanOrEqual(1);
    });

    it('apertium: translates from the outputs container, with its memory limit and no published port', () => {
      const started = Date.now();
      expect(translateFromOutputs(true, 'spa', 'Good morning, everyone.')).toBe(
        'Buenos días, todo el mundo.',
      );
      expect(translateFromOutputs(true, 'cat', 'Good morning, everyone.')).toBe('Bon dia, tothom.');
      figures.push(
        `apertium: first eng-spa and eng-cat translations in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      // Its log names the requests, never the captions they carry.
      const logs = compose(true, ['logs', '--no-color', 'apertium']);
      expect(logs).toContain('GET /translate');
      expect(logs).not.toContain('morning');
    });

    it('outputs: lists the apertium container’s targets and adds a Spanish translation on it', async () => {
      const codes = await apertiumTargetThroughOutputs(
        LOCAL.outputs,
        outputRoomIn(join(work, 'secrets/local')),
      );
      expect(codes).toEqual(expect.arrayContaining(['ca', 'es']));
      const [apertium] = projectContainers(LOCAL_PROJECT, 'apertium');
      const [memory, bindings] = must('docker', [
        'inspect',
        '--format',
        '{{.HostConfig.Memory}} {{json .HostConfig.PortBindings}}',
        apertium!,
      ])
        .trim()
        .split(' ');
      expect(Number(memory)).toBe(768 * 1024 ** 2);
      expect(bindings).toBe('{}');
    });

    it('sources: an RTMP push from this host to the published port is captioned into the source room', async () => {
      const [sources] = projectContainers(LOCAL_PROJECT, 'sources');
      expect(Number(must('docker', ['inspect', '--format', '{{.HostConfig.Memory}}', sources!]))).toBe(
        1024 ** 3,
      );
      const seconds = await pushedStreamCaptioned({
        api: LOCAL.sources,
        apiKey,
        secretsDir: join(work, 'secrets/local'),
        relayUrl: 'ws://127.0.0.1:8080/ws',
        rtmpHost: '127.0.0.1',
        rtmpPort: 1936,
        publicHost: 'localhost',
        WebSocket,
        logs: () => compose(true, ['logs', '--no-color', '--tail', '40', 'sources', 'speech', 'worker']),
      });
      figures.push(`sources: first caption of an RTMP push ${seconds.toFixed(1)} s after ffmpeg started`);
    });

    it('calendar: migrated, and a write is read back from the PostgreSQL container', async () => {
      const created = await fetch(`${LOCAL.calendar}/events`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${CALENDAR_TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(EVENT),
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: number };
      const read = await fetch(`${LOCAL.calendar}/events/${id}`);
      expect(((await read.json()) as { title: string }).title).toBe(EVENT.title);
      const rows = psql(
        true,
        `select (select count(*) from cal_migrations) > 0, (select title from cal_events where id = ${id})`,
      );
      expect(rows).toBe(`t|${EVENT.title}`);
    });
  });
}
