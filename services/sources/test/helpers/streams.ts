/**
 * The setup the streams suites share: the base (relay, gateway, reader), TLS material, and the
 * sources service with its RTMP listener and SRT ports on free ports, a 4 s stall limit and the
 * test authority trusted (SOURCES_CA_FILE); and how a suite reads a source's captions and view.
 */
import { freePort, killAll } from '@live-captions/test-services';
import { makeCertificates } from './certificates.js';
import { api, type Base, createDatabase, finals, type Running, startBase, startSources } from './stack.js';

export interface Streams {
  base: Base;
  sources: Running;
  rtmpPort: number;
  srtFirst: number;
  /** The sources service's settings, to start it again with. */
  sourcesEnv: Record<string, string>;
  tls: ReturnType<typeof makeCertificates>;
}

/** A source's settings in these suites. */
export const settings = { language: 'en', mode: 'transcribe' };

export async function startStreams(): Promise<Streams> {
  const tls = makeCertificates();
  const base = await startBase();
  try {
    const rtmpPort = await freePort();
    const srtFirst = 20_000 + Math.floor(Math.random() * 20_000);
    const sourcesEnv = {
      DATABASE_URL: await createDatabase(),
      SOURCES_RTMP_PORT: String(rtmpPort),
      SOURCES_SRT_PORTS: `${srtFirst}-${srtFirst + 3}`,
      SOURCES_STALL_SECONDS: '4',
      SOURCES_CA_FILE: tls.caFile,
    };
    const sources = await startSources(base, sourcesEnv);
    return { base, sources, rtmpPort, srtFirst, sourcesEnv, tls };
  } catch (error) {
    await base.stop();
    throw error;
  }
}

export async function stopStreams(base: Base | undefined, sources: Running | undefined): Promise<void> {
  if (sources) await killAll([sources.proc]);
  await base?.stop();
}

/** The finals (with `label`: its captions, the gap markers) of source `id` in the source room. */
export const sourceFinals = (base: Base, id: string, label?: string) =>
  finals(base.captions, label).filter((c) => String(c.id).startsWith(`${id.slice(0, 8)}-`));

/** The sources API's view of source `id`. */
export const sourceView = async (sources: Running, id: string) =>
  (await api(sources.port, 'GET', `/sources/${id}`)).json.source as Record<string, any>;
