/**
 * A source's life as an operator drives it, every part real (the relay, the gateway on the
 * synthetic speech model, the service as a process, nginx-rtmp, ffmpeg encoders): caption ids
 * never repeat in the room across stops, a restart of the service and a delete while running;
 * Stop and Remove disconnect a pushing encoder at once; an RTMP or SRT encoder is live within
 * seconds; a single node never shows "waiting for a node"; a live source says when the gateway
 * is away. The gateway is killed by the last test.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { freePort, killAll } from '@live-captions/test-services';
import { publish, startMediaServer } from './helpers/media.js';
import {
  api,
  type Base,
  createDatabase,
  ROOM,
  type Running,
  sleep,
  startBase,
  startSources,
  until,
} from './helpers/stack.js';

jest.setTimeout(300_000);

let base: Base;
let sources: Running;
let rtmpPort: number;
let env: Record<string, string>;
const settings = { language: 'en', mode: 'transcribe' };

const ofSource = (id: string) => base.captions.filter((c) => String(c.id).startsWith(`${id.slice(0, 8)}-`));
const view = async (id: string) =>
  (await api(sources.port, 'GET', `/sources/${id}`)).json.source as Record<string, unknown>;
/** Every caption id of the room once: none sent twice, whatever the source did. */
const expectIdsOnce = () => {
  const ids = base.captions.map((c) => String(c.id));
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  expect(ids.filter((id) => /-0$/.test(id))).toEqual([]);
};
/** Whether an encoder process ends within `ms` (its connection dropped). */
const endsWithin = async (encoder: { exited: Promise<number | null> }, ms: number) =>
  (await Promise.race([encoder.exited.then(() => true), sleep(ms).then(() => false)])) === true;

beforeAll(async () => {
  base = await startBase();
  rtmpPort = await freePort();
  const srtFirst = 20_000 + Math.floor(Math.random() * 20_000);
  env = {
    DATABASE_URL: await createDatabase(),
    SOURCES_RTMP_PORT: String(rtmpPort),
    SOURCES_SRT_PORTS: `${srtFirst}-${srtFirst + 3}`,
  };
  sources = await startSources(base, env);
}, 180_000);

afterAll(async () => {
  if (sources) await killAll([sources.proc]);
  await base?.stop();
});

test('caption ids never repeat in the room: across stop and start, a restart of the service, a delete while running', async () => {
  const media = await startMediaServer();
  const url = `rtmp://127.0.0.1:${media.port}/live/ids-key-123456`;
  const publisher = publish(url, 'flv');
  try {
    const added = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'Chamber',
      input: { kind: 'pull', url },
      settings,
    });
    expect(added.status).toBe(201);
    const id = added.json.source.id as string;
    await until('captions', () => ofSource(id).length >= 2, 90_000);

    expect((await api(sources.port, 'POST', `/sources/${id}/stop`)).json.source.state).toBe('stopped');
    let before = ofSource(id).length;
    expect((await api(sources.port, 'POST', `/sources/${id}/start`)).status).toBe(200);
    await until('captions after a stop and start', () => ofSource(id).length >= before + 2, 90_000);

    // A graceful restart of the service (SIGTERM): it flushes, then resumes the source.
    sources.proc.child.kill('SIGTERM');
    await sources.proc.exited;
    before = ofSource(id).length;
    sources = await startSources(base, env);
    await until('captions after a restart', () => ofSource(id).length >= before + 2, 90_000);

    // Deleted mid-speech: what is buffered is still captioned, under ids of its own.
    before = ofSource(id).length;
    await until('a new caption', () => ofSource(id).length > before, 30_000);
    await sleep(1500);
    const atDelete = ofSource(id).length;
    expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    await sleep(2000);
    console.log(
      `captions: ${ofSource(id).length} (${ofSource(id).length - atDelete} flushed by the delete); ids ${ofSource(
        id,
      )
        .map((c) => c.id)
        .join(' ')}`,
    );
    // Three runs, three prefixes: `<id>-<run>-<n>`.
    expect(new Set(ofSource(id).map((c) => String(c.id).split('-').slice(0, 2).join('-'))).size).toBe(3);
    expectIdsOnce();
  } finally {
    await publisher.stop();
    await media.stop();
  }
});

test('RTMP and SRT encoders are live within seconds; Stop and Remove disconnect them at once; never "waiting for a node"', async () => {
  const add = async (kind: 'rtmp-push' | 'srt-push') => {
    const added = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: kind,
      input: { kind },
      settings,
    });
    expect(added.status).toBe(201);
    // This node runs it from the answer on: connecting, waiting for its encoder.
    expect(added.json.source).toMatchObject({ state: 'connecting', reason: null });
    return {
      id: added.json.source.id as string,
      url: added.json.push.url as string,
      format: kind === 'rtmp-push' ? ('flv' as const) : ('mpegts' as const),
    };
  };
  const pushes = [await add('rtmp-push'), await add('srt-push')];
  const reasons = new Set<unknown>();
  const live = async (push: (typeof pushes)[number]) => {
    const encoder = publish(push.url.replace('localhost', '127.0.0.1'), push.format);
    const started = Date.now();
    await until(`${push.format} live`, async () => {
      const seen = await view(push.id);
      reasons.add(seen.reason);
      return seen.state === 'live';
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`${push.format} encoder live after ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(4);
    return encoder;
  };
  for (const push of pushes) {
    let encoder = await live(push);
    const stopped = await api(sources.port, 'POST', `/sources/${push.id}/stop`);
    expect(stopped.json.source.state).toBe('stopped');
    expect(`${push.format} after Stop: ${await endsWithin(encoder, 3000)}`).toBe(
      `${push.format} after Stop: true`,
    );
    const started = await api(sources.port, 'POST', `/sources/${push.id}/start`);
    expect(started.json.source).toMatchObject({ state: 'connecting', reason: null });
    encoder = await live(push);
    expect((await api(sources.port, 'DELETE', `/sources/${push.id}`)).status).toBe(204);
    expect(`${push.format} after Remove: ${await endsWithin(encoder, 3000)}`).toBe(
      `${push.format} after Remove: true`,
    );
    await encoder.stop();
  }
  expect([...reasons].filter((reason) => reason !== null)).toEqual([]);
  expectIdsOnce();
});

test('a server answering with what is no audio: the reason says so within seconds, not after 20 s', async () => {
  // A radio-rate trickle of noise: ffmpeg probes it for minutes without an error of its own.
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
    const timer = setInterval(() => res.write(randomBytes(1600)), 100);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const added = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'Not a stream',
      input: { kind: 'pull', url: `http://127.0.0.1:${port}/live` },
      settings,
    });
    const id = added.json.source.id as string;
    const started = Date.now();
    let seen: Record<string, unknown> = {};
    await until(
      'a reason',
      async () => {
        seen = await view(id);
        return seen.reason !== null;
      },
      15_000,
    );
    console.log(
      `noise over HTTP after ${((Date.now() - started) / 1000).toFixed(1)} s: ${seen.state}: ${seen.reason}`,
    );
    expect(seen.state).toBe('connecting');
    expect(String(seen.reason)).toMatch(
      /^no audio yet after 5 s: check that the address is the stream itself/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('while the gateway is away, a live source falling behind says so; Remove does not hang on it', async () => {
  const media = await startMediaServer();
  const url = `rtmp://127.0.0.1:${media.port}/live/away-key-123456`;
  const publisher = publish(url, 'flv');
  try {
    const added = await api(sources.port, 'POST', '/sources', {
      room: ROOM,
      name: 'Chamber',
      input: { kind: 'pull', url },
      settings,
    });
    const id = added.json.source.id as string;
    await until('captions', () => ofSource(id).length >= 1, 90_000);
    await killAll([base.gateway]);
    let seen: Record<string, unknown> = {};
    await until(
      'the reason while behind',
      async () => {
        seen = await view(id);
        return Number(seen.behindSeconds) > 3 && /Speech service not answering/.test(String(seen.reason));
      },
      30_000,
    );
    console.log(
      `gateway away: ${JSON.stringify({ state: seen.state, reason: seen.reason, behind: seen.behindSeconds })}`,
    );
    expect(['live', 'silent']).toContain(seen.state);
    // Removed while the gateway is still away: the answer waits for it only so long (10 s).
    const removing = Date.now();
    expect((await api(sources.port, 'DELETE', `/sources/${id}`)).status).toBe(204);
    expect(Date.now() - removing).toBeLessThan(15_000);
  } finally {
    await publisher.stop();
    await media.stop();
  }
});
