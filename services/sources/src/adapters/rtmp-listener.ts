/**
 * The RTMP push listener: a private nginx with Debian's RTMP module (libnginx-mod-rtmp), run by
 * the service as a child process with a configuration of its own. Encoders publish to
 * `rtmp://host:PORT/live/<stream key>`; nginx asks the service (`on_publish`, on loopback with a
 * path secret) whether the key belongs to a source this replica runs, and refuses the publisher
 * otherwise. The source's ffmpeg then plays the stream from nginx on loopback: only this host may
 * play. nginx is restarted (after 1 s, doubling to 30 s) if it dies.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@live-captions/runtime';
import { spawnTied } from './tied-process.js';

export interface RtmpListenerOptions {
  nginxPath: string;
  modulePath: string;
  bind: string;
  port: number;
  /** The service's `on_publish` URL (loopback, with its path secret). */
  onPublishUrl: string;
  onPublishDoneUrl: string;
  log: Logger;
}

export interface RtmpListener {
  /** Where the sources' ffmpeg plays a key from: `rtmp://<loopback>:PORT/live`. */
  readonly playUrl: string;
  /**
   * Disconnects the encoder publishing with `key`, if any. Without it an encoder stays connected to
   * nginx (which keeps taking its stream) after its source stops or is removed, with no error.
   */
  dropPublisher(key: string): Promise<void>;
  close(): Promise<void>;
}

/** The address this host reaches the listener at. */
const playHost = (bind: string) => (bind === '0.0.0.0' || bind === '::' ? '127.0.0.1' : bind);

/** nginx-rtmp's control API (drop a publisher): a socket file in nginx's own folder, no port. */
const controlSocket = (dir: string) => join(dir, 'control.sock');

export function nginxConfig(options: RtmpListenerOptions, dir: string): string {
  const listen = options.bind.includes(':')
    ? `[${options.bind}]:${options.port}`
    : `${options.bind}:${options.port}`;
  return [
    `load_module ${options.modulePath};`,
    'daemon off;',
    'master_process off;',
    'worker_processes 1;',
    `pid ${join(dir, 'nginx.pid')};`,
    'error_log stderr warn;',
    'events { worker_connections 512; }',
    'http {',
    '  access_log off;',
    // The compiled-in temporary paths are Debian's /var/lib/nginx, which a non-root service
    // cannot create; nothing is buffered there.
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `  ${kind}_temp_path ${join(dir, `temp-${kind}`)};`,
    ),
    '  server {',
    `    listen unix:${controlSocket(dir)};`,
    '    location /control { rtmp_control all; }',
    '    location / { return 404; }',
    '  }',
    '}',
    'rtmp {',
    // The RTMP module's access log defaults to nginx's compiled-in path (Debian's
    // /var/log/nginx/access.log), which a non-root service cannot open: nginx would refuse to
    // start (in the container, and under `pnpm start` as a normal user). Nothing is logged there.
    '  access_log off;',
    '  server {',
    `    listen ${listen};`,
    '    chunk_size 4096;',
    '    application live {',
    '      live on;',
    '      record off;',
    '      allow publish all;',
    `      allow play ${playHost(options.bind)};`,
    '      deny play all;',
    // Players of a stream that is not published wait for it; a publisher that sends nothing for
    // 15 s is dropped.
    '      drop_idle_publisher 15s;',
    '      notify_method get;',
    `      on_publish ${options.onPublishUrl};`,
    `      on_publish_done ${options.onPublishDoneUrl};`,
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

export function startRtmpListener(options: RtmpListenerOptions): RtmpListener {
  const dir = mkdtempSync(join(tmpdir(), 'sources-rtmp-'));
  mkdirSync(join(dir, 'logs'), { recursive: true });
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig(options, dir));
  let closed = false;
  let child: ReturnType<typeof spawnTied> | undefined;
  let delay = 1000;
  let timer: NodeJS.Timeout | undefined;
  const start = () => {
    // A socket file left by an nginx that was killed would keep the next one from listening.
    rmSync(controlSocket(dir), { force: true });
    const startedAt = Date.now();
    const proc = spawnTied(options.nginxPath, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child = proc;
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    proc.once('error', (error) => options.log.error({ err: error.message }, 'cannot start nginx for RTMP'));
    proc.once('exit', (code) => {
      if (closed) return;
      if (Date.now() - startedAt > 60_000) delay = 1000;
      const last = stderr.trim().split('\n').pop()?.replace(/\?\S*/g, '?…') ?? '';
      options.log.error(
        { code, reason: last, retryInMs: delay },
        'RTMP listener (nginx) stopped; restarting',
      );
      timer = setTimeout(start, delay);
      delay = Math.min(delay * 2, 30_000);
    });
  };
  start();
  options.log.info({ bind: options.bind, port: options.port }, 'RTMP listener started');
  return {
    playUrl: `rtmp://${playHost(options.bind)}:${options.port}/live`,
    dropPublisher: (key) =>
      new Promise<void>((resolve) => {
        const path = `/control/drop/publisher?app=live&name=${encodeURIComponent(key)}`;
        const req = request({ socketPath: controlSocket(dir), path, timeout: 2000 }, (res) => {
          res.resume();
          res.once('end', () => resolve());
        });
        // nginx down or restarting: its publishers are gone with it.
        req.once('error', () => resolve());
        req.once('timeout', () => req.destroy());
        req.end();
      }),
    async close() {
      closed = true;
      clearTimeout(timer);
      const proc = child;
      if (proc && proc.exitCode === null) {
        const exited = new Promise((resolve) => proc.once('exit', resolve));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
        proc.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
