/**
 * The media side of the stream sources tests, all real programs: a private nginx-rtmp (Debian's
 * module) as the media server sources pull from, GStreamer's RTSP server as a room camera, a
 * private Icecast as a radio station's server, and ffmpeg publishers playing the committed speech
 * fixture to them or to the sources service's own listeners.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@live-captions/test-services';
import { publishStream, type StreamFormat } from '@live-captions/test-services/stream-publisher';
import { SPEECH_CLIP, sleep } from './stack.js';

const HELPERS = fileURLToPath(new URL('.', import.meta.url));

/** A private nginx with the RTMP module on a free loopback port, one live application. */
export async function startMediaServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sources-nginx-'));
  mkdirSync(join(dir, 'logs'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;',
      'daemon off;',
      'master_process off;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr warn;',
      'events { worker_connections 64; }',
      `rtmp { server { listen 127.0.0.1:${port}; application live { live on; record off; } } }`,
    ].join('\n'),
  );
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
    stdio: 'ignore',
    env: { PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
  });
  await sleep(500);
  return {
    port,
    async stop() {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/**
 * A room camera: GStreamer's RTSP server (Debian's packages, helpers/rtsp-server.py) serving the
 * speech clip once per client at `url`. Debian's own python3, which has the GObject bindings.
 */
export async function startRtspServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    '/usr/bin/python3',
    [join(HELPERS, 'rtsp-server.py'), String(port), '/room', SPEECH_CLIP],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the RTSP server exited (${code})`)));
  });
  return {
    url: `rtsp://127.0.0.1:${port}/room`,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * A private Icecast (Debian's icecast2) on a free loopback port: the radio station's server that
 * sources pull plain HTTP audio from. `publish(icecast.mount, 'mp3')` is its source client.
 */
export async function startIcecast(): Promise<{ port: number; mount: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'sources-icecast-'));
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  // Icecast refuses to run as root unless told which user to become; that user writes its logs.
  const asRoot = process.getuid?.() === 0;
  writeFileSync(
    join(dir, 'icecast.xml'),
    [
      '<icecast>',
      '<limits><clients>8</clients><sources>2</sources><source-timeout>10</source-timeout></limits>',
      `<authentication><source-password>${password}</source-password>`,
      `<admin-user>admin</admin-user><admin-password>${password}</admin-password></authentication>`,
      '<hostname>127.0.0.1</hostname>',
      `<listen-socket><port>${port}</port><bind-address>127.0.0.1</bind-address></listen-socket>`,
      '<paths><basedir>/usr/share/icecast2</basedir><webroot>/usr/share/icecast2/web</webroot>',
      `<adminroot>/usr/share/icecast2/admin</adminroot><logdir>${dir}</logdir></paths>`,
      '<logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>2</loglevel></logging>',
      asRoot
        ? '<security><chroot>0</chroot><changeowner><user>icecast2</user><group>icecast</group></changeowner></security>'
        : '',
      '</icecast>',
    ].join('\n'),
  );
  if (asRoot) execFileSync('chown', ['icecast2:icecast', dir]);
  const child = spawn('icecast2', ['-c', join(dir, 'icecast.xml')], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await sleep(500);
  return {
    port,
    mount: `icecast://source:${password}@127.0.0.1:${port}/live`,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * An ffmpeg publisher playing the speech clip in a loop, in real time, to `url` (`format`: flv or
 * mpegts for RTMP and SRT, mp3 as an Icecast source client).
 */
export function publish(
  url: string,
  format: StreamFormat,
): { child: ChildProcess; stop(): Promise<void>; exited: Promise<number | null> } {
  const child = publishStream(url, { clip: SPEECH_CLIP, format });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
