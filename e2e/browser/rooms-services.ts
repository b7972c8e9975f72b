/**
 * The outputs and stream sources services beside a caption rooms stack (rooms-stack.ts), for the
 * board's status suite: both follow the relay's file and its rooms API with the service token (a
 * room made on the board takes destinations and sources within 2 s) and answer the hub's origin.
 */
import { join } from 'node:path';
import { freePort, type ServiceProcess, startService, until } from '../deploy/helpers/processes.js';

export interface BoardServicesPorts {
  outputs: number;
  sources: number;
}

export async function boardServicesPorts(): Promise<BoardServicesPorts> {
  return { outputs: await freePort(), sources: await freePort() };
}

export interface BoardServicesOptions {
  dir: string;
  ports: BoardServicesPorts;
  relayUrl: string;
  captureUrl: string;
  uiOrigin: string;
  apiKey: string;
  /** Hosts the outputs service may post to (the platform stand-in's host:port). */
  outputsHosts: string;
}

/** Starts both; resolves once each answers its `/health` (the outputs' database may be slow). */
export async function startBoardServices(options: BoardServicesOptions): Promise<ServiceProcess[]> {
  const common = {
    CAPTION_API_KEY: options.apiKey,
    CAPTION_LOCAL_ENV_FILE: join(options.dir, 'no-caption-local.env'),
    CAPTION_RELAY_CONFIG: join(options.dir, 'relay.private.json'),
    RELAY_URL: options.relayUrl,
  };
  const [rtmp, srt] = [await freePort(), await freePort()];
  const services = [
    startService('outputs', {
      ...common,
      LOG_LEVEL: 'warn',
      OUTPUTS_PORT: String(options.ports.outputs),
      OUTPUTS_DATA_DIR: join(options.dir, 'outputs'),
      OUTPUTS_ALLOWED_ORIGINS: options.uiOrigin,
      OUTPUTS_ALLOWED_HOSTS: options.outputsHosts,
      OUTPUTS_YOUTUBE_INTERVAL_MS: '200',
    }),
    startService('sources', {
      ...common,
      LOG_LEVEL: 'warn',
      PATH: `${process.env.PATH}:/usr/sbin:/sbin`,
      SOURCES_PORT: String(options.ports.sources),
      SOURCES_DATA_DIR: join(options.dir, 'sources'),
      CAPTION_URL: options.captureUrl.replace(/\/$/, ''),
      SOURCES_ALLOWED_ORIGINS: options.uiOrigin,
      SOURCES_ALLOWED_HOSTS: '127.0.0.1',
      SOURCES_RTMP_PORT: String(rtmp),
      SOURCES_SRT_PORTS: `${srt}-${srt}`,
      SOURCES_PUBLIC_HOST: '127.0.0.1',
    }),
  ];
  try {
    const ok = (port: number) => async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok;
    // Its embedded database starts in ~5 s on an idle machine, over a minute on a loaded one.
    await until('the outputs service', ok(options.ports.outputs), 180_000);
    await until('the sources service', ok(options.ports.sources), 60_000);
  } catch (error) {
    await Promise.all(services.map((service) => service.stop()));
    throw new Error(
      `${(error as Error).message}\n${services.map((s) => `--- ${s.name}\n${s.output()}`).join('\n')}`,
      {
        cause: error,
      },
    );
  }
  return services;
}
