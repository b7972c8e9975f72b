/**
 * What the process-level outputs tests (delivery, replicas, outages) set up alike: the relay with
 * the test rooms, the environment every outputs process of a test shares, and how a stand-in's
 * received captions and the published ones are compared.
 */
import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { RelayPublisher } from '@live-captions/relay-client/node';
import { type StandIn, startYouTubeStandIn, youtubeBlocks } from '@live-captions/test-services';
import {
  api,
  createDatabase,
  freePort,
  kill,
  publisher,
  ROOM,
  type Running,
  reading,
  relayConfigFile,
  startOutputs,
  startRelay,
  TOKENS,
  until,
  words,
} from './index.js';

export interface RelayStack {
  relay: Running;
  /** The relay's configuration file, for a restart on the same port. */
  configPath: string;
  /** What every outputs process of the test gets: the relay, the database, the listed hosts. */
  env: Record<string, string>;
}

/** Starts the relay (on a free port) and names a fresh database unless `databaseUrl` is given. */
export async function startRelayStack(options: {
  /** Ports of the stand-ins on 127.0.0.1 the outputs service may call. */
  allowed: number[];
  databaseUrl?: string;
  relayRedis?: { url: string; prefix: string };
  /** The relay's `limits` (its config file's), e.g. a shortened history. */
  relayLimits?: Record<string, number>;
}): Promise<RelayStack> {
  const configPath = relayConfigFile(options.relayLimits);
  const relay = await startRelay(configPath, await freePort(), options.relayRedis);
  const env = {
    CAPTION_RELAY_CONFIG: configPath,
    RELAY_URL: `ws://127.0.0.1:${relay.port}/ws`,
    DATABASE_URL: options.databaseUrl ?? (await createDatabase()),
    OUTPUTS_ALLOWED_HOSTS: options.allowed.map((port) => `127.0.0.1:${port}`).join(','),
  };
  return { relay, configPath, env };
}

/** The outputs settings for a Redis (leases), with a prefix of its own. */
export const redisEnv = (url: string) => ({
  REDIS_URL: url,
  OUTPUTS_REDIS_PREFIX: `outputs-${randomBytes(4).toString('hex')}:`,
});

/** Adds a destination to the output room through the API; the answer's status. */
export const addDestination = async (port: number, body: { kind: string; url?: string }) =>
  (await api(port, 'POST', `/rooms/${ROOM}/destinations`, TOKENS.write, body)).status;

/** Publishes finals `${label} n.` for n in from..to (id n) and records them as published. */
export function publishNumbered(
  writer: RelayPublisher | undefined,
  published: string[],
  label: string,
  from: number,
  to: number,
): void {
  for (let n = from; n <= to; n++) {
    published.push(`${label} ${n}.`);
    writer?.publish({ final: `${label} ${n}.`, id: n });
  }
}

/** The words the YouTube stand-in accepted, in order (line shaping aside). */
export const youtubeWords = (youtube: StandIn) =>
  youtube.accepted.flatMap((post) =>
    youtubeBlocks(post.body).flatMap((block) => block.lines.join(' ').split(' ')),
  );

/** The words the Zoom stand-in accepted, in order. */
export const zoomWords = (zoom: StandIn) => zoom.accepted.flatMap((post) => post.body.split(/\s+/));

/** Stops what a test started, in order: the publisher, the processes, then the stand-ins. */
export async function stopAll(
  writer: RelayPublisher | undefined,
  processes: (Running | undefined)[],
  standIns: ({ close(): Promise<unknown> } | undefined)[],
): Promise<void> {
  writer?.close();
  for (const running of processes) await kill(running);
  for (const standIn of standIns) await standIn?.close();
}

/** The output room's publisher, once the outputs process on `outputs` reads the room. */
export async function publisherOnceReading(outputs: Running, relay: Running): Promise<RelayPublisher> {
  await reading(outputs.port);
  return publisher(relay.port);
}

/** One outputs process delivering the output room to a YouTube stand-in: the outage tests' stack. */
export interface YouTubeDelivery {
  relay: Running;
  outputs: Running;
  youtube: StandIn;
  /** Every caption published, in order. */
  published: string[];
  /** Publishes finals `${label} n.` for n in from..to (nothing before {@link deliverFirst}). */
  publish(from: number, to: number): void;
  /** Whether the stand-in has every published caption's words. */
  delivered(): boolean;
  /** Adds the destination, publishes 1..5 once the room is read and waits until they are delivered. */
  deliverFirst(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the stand-in, the relay and outputs with `env` (YouTube sends every 200 ms). */
export async function startYouTubeDelivery(
  label: string,
  options: { databaseUrl?: string; env?: Record<string, string> } = {},
): Promise<YouTubeDelivery> {
  const youtube = await startYouTubeStandIn();
  const { relay, env } = await startRelayStack({ allowed: [youtube.port], databaseUrl: options.databaseUrl });
  const outputs = await startOutputs({ ...env, OUTPUTS_YOUTUBE_INTERVAL_MS: '200', ...options.env });
  const published: string[] = [];
  let writer: RelayPublisher | undefined;
  const publish = (from: number, to: number) => publishNumbered(writer, published, label, from, to);
  const delivered = () => youtubeWords(youtube).length === words(published).length;
  return {
    relay,
    outputs,
    youtube,
    published,
    publish,
    delivered,
    async deliverFirst() {
      expect(await addDestination(outputs.port, { kind: 'youtube', url: youtube.url })).toBe(201);
      writer = await publisherOnceReading(outputs, relay);
      publish(1, 5);
      await until('first captions delivered', delivered);
    },
    stop: () => stopAll(writer, [outputs, relay], [youtube]),
  };
}
