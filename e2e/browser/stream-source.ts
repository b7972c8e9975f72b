/**
 * A stream source beside a browser session, every part real: a private nginx-rtmp as the media
 * server, an ffmpeg publisher playing the speech clip into it in real time (killable, as an
 * encoder whose connection drops), and the stream sources service on the session's relay and
 * gateway (through the capture host), pulling the stream into the session's source room.
 */
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { callApi } from '@live-captions/test-services';
import { publish, startMediaServer } from '../../services/sources/test/helpers/media.js';
import { freePort, startService, until } from '../deploy/helpers/processes.js';
import type { Session } from './session.js';

export interface StreamSource {
  /** The source's id on the sources service. */
  id: string;
  /** Kills the publisher (the media server keeps the application: the source's ffmpeg waits or retries). */
  interrupt(): Promise<void>;
  /** Starts the publisher again on the same stream key. */
  resume(): void;
  /** The source's state on the sources service (`live`, `reconnecting`, ...). */
  state(): Promise<string>;
  /** Stops the source (nothing more is captioned); the processes stay for `close`. */
  remove(): Promise<void>;
  close(): Promise<void>;
  logs(): string;
}

/** Starts the media server, the publisher and the sources service; adds the pull source. */
export async function startStreamSource(session: Session): Promise<StreamSource> {
  const { stack, scratch } = session;
  const media = await startMediaServer();
  const streamUrl = `rtmp://127.0.0.1:${media.port}/live/council-${Date.now()}`;
  let publisher = publish(streamUrl, 'flv');
  const [port, rtmp, srt] = [await freePort(), await freePort(), await freePort()];
  const sources = startService('sources', {
    LOG_LEVEL: 'info',
    PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
    SOURCES_PORT: String(port),
    SOURCES_DATA_DIR: join(scratch, 'sources'),
    CAPTION_URL: stack.captureUrl.replace(/\/$/, ''),
    CAPTION_API_KEY: stack.apiKey,
    CAPTION_LOCAL_ENV_FILE: join(scratch, 'no-caption-local.env'),
    RELAY_URL: stack.relayUrl,
    CAPTION_RELAY_CONFIG: join(stack.dir, 'relay.private.json'),
    SOURCES_ALLOWED_HOSTS: '127.0.0.1',
    SOURCES_RTMP_PORT: String(rtmp),
    SOURCES_SRT_PORTS: `${srt}-${srt}`,
    // A dropped input is noticed within 4 s (the sources suite's setting).
    SOURCES_STALL_SECONDS: '4',
  });
  const logs = () => `--- sources\n${sources.output()}\n${stack.logs()}`;
  const close = async () => {
    await publisher.stop();
    await sources.stop();
    await media.stop();
  };
  const api = (method: string, path: string, body?: unknown) =>
    callApi(port, method, path, stack.apiKey, body);
  let id: string;
  try {
    await until(
      'the sources service',
      async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
      // Started from its sources (tsx): slow on a loaded machine.
      120_000,
    );
    const added = await api('POST', '/sources', {
      room: stack.rooms.source,
      name: 'Council chamber',
      input: { kind: 'pull', url: streamUrl },
      settings: { language: 'en', mode: 'transcribe' },
    });
    expect(added.status).toBe(201);
    id = (added.json as { source: { id: string } }).source.id;
  } catch (error) {
    await close();
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
  return {
    id,
    async interrupt() {
      await publisher.stop();
    },
    resume() {
      publisher = publish(streamUrl, 'flv');
    },
    async state() {
      return ((await api('GET', `/sources/${id}`)).json as { source: { state: string } }).source.state;
    },
    async remove() {
      expect((await api('DELETE', `/sources/${id}`)).status).toBe(204);
    },
    close,
    logs,
  };
}
