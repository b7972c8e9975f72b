/**
 * Stream sources pulling HLS, every part real (see streams.test.ts): a playlist ffmpeg cut from
 * the committed speech fixture, served over HTTP, is captioned; the address rules hold, for the
 * address given and for every address a playlist names (other schemes, hosts the operator did
 * not list).
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { api, type Base, ROOM, type Running, SPEECH_CLIP, until } from './helpers/stack.js';
import { settings, sourceFinals, sourceView, startStreams, stopStreams } from './helpers/streams.js';

jest.setTimeout(240_000);

let base: Base;
let sources: Running;

const ofSource = (id: string, label?: string) => sourceFinals(base, id, label);
const source = (id: string) => sourceView(sources, id);

beforeAll(async () => {
  ({ base, sources } = await startStreams());
}, 120_000);

afterAll(() => stopStreams(base, sources));

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
