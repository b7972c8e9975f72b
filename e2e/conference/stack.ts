/**
 * A conference's stack as real processes: the relay keeping its caption rooms in a private
 * PostgreSQL (restartable), two outputs replicas and two stream sources replicas sharing it and
 * the run's Redis (leases), and per room a publisher of its output room (what the editor does).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaptionRoom } from '@live-captions/protocol';
import { createPublisher, type RelayPublisher } from '@live-captions/relay-client/node';
import {
  callApi,
  freePort,
  killAll,
  type PostgresCluster,
  runRedisUrl,
  type ServiceProcess,
  startPostgresCluster,
  startServiceProcess,
} from '@live-captions/test-services';
import { RELAY_ENTRY, startOutputs, until } from '../../services/outputs/test/helpers/index.js';

export { until };

export const API_KEY = `conference-${randomBytes(12).toString('hex')}`;
const SOURCES_ENTRY = fileURLToPath(new URL('../../services/sources/src/index.ts', import.meta.url));

export interface Service {
  proc: ServiceProcess;
  port: number;
}

export interface Conference {
  pg: PostgresCluster;
  relay: Service;
  relayPort: number;
  outputs: Service[];
  rooms: CaptionRoom[];
  publishers: Map<string, RelayPublisher>;
  /** Calls the relay's rooms API with the service token. */
  relayApi(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  startRelay(): Promise<void>;
  startOutputs(): Promise<Service>;
  startSources(): Promise<Service>;
  createRoom(name: string): Promise<CaptionRoom>;
  /** Captions archived in a room's output room (every session), read with the service token. */
  archived(room: CaptionRoom): Promise<number>;
  stop(): Promise<void>;
}

async function portOf(proc: ServiceProcess, message: RegExp): Promise<number> {
  await until(`${message} in the log`, () => proc.logLines(message).length > 0, 90_000);
  return Number(proc.logLines(message)[0]?.port);
}

export async function startConference(): Promise<Conference> {
  const pg = await startPostgresCluster();
  const dir = mkdtempSync(join(tmpdir(), 'conference-'));
  const relayConfig = join(dir, 'relay.private.json');
  // The file keeps one pair of its own, as an upgraded installation does.
  const token = (c: string) => `${c}${randomBytes(20).toString('hex')}`;
  writeFileSync(
    relayConfig,
    JSON.stringify({
      origins: ['http://localhost:8081'],
      rooms: {
        captions: { read: token('r'), write: token('w') },
        'captions-output': { read: token('R'), write: token('W') },
      },
    }),
  );
  // One database for the three services, as in the compositions: their tables have their own names.
  const database = pg.url('postgres');
  const [relayDb, outputsDb, sourcesDb] = [database, database, database];
  const relayPort = await freePort();
  const redisPrefix = `conference-${randomBytes(4).toString('hex')}`;
  const processes: ServiceProcess[] = [];
  const publishers = new Map<string, RelayPublisher>();
  const relayUrl = `ws://127.0.0.1:${relayPort}/ws`;
  const shared = { CAPTION_API_KEY: API_KEY, CAPTION_RELAY_CONFIG: relayConfig, RELAY_URL: relayUrl };

  const conference: Conference = {
    pg,
    relay: undefined as unknown as Service,
    relayPort,
    outputs: [],
    rooms: [],
    publishers,
    async relayApi(method, path, body) {
      const { status, json } = await callApi(relayPort, method, path, API_KEY, body);
      return { status, json: json as unknown };
    },
    async startRelay() {
      const proc = startServiceProcess(RELAY_ENTRY, {
        ...shared,
        RELAY_PORT: String(relayPort),
        DATABASE_URL: relayDb,
        RELAY_ROOMS_POLL_MS: '500',
      });
      processes.push(proc);
      conference.relay = { proc, port: await portOf(proc, /^relay listening$/) };
    },
    async startOutputs() {
      const running = await startOutputs({
        ...shared,
        DATABASE_URL: outputsDb,
        REDIS_URL: runRedisUrl(),
        OUTPUTS_REDIS_PREFIX: `${redisPrefix}:outputs:`,
        OUTPUTS_LEASE_MS: '3000',
        LOG_LEVEL: 'info',
      });
      processes.push(running.proc);
      conference.outputs.push(running);
      return running;
    },
    async startSources() {
      const proc = startServiceProcess(SOURCES_ENTRY, {
        ...shared,
        SOURCES_PORT: '0',
        // No gateway is needed: these sources pull from an address nobody answers.
        CAPTION_URL: 'http://127.0.0.1:9',
        DATABASE_URL: sourcesDb,
        REDIS_URL: runRedisUrl(),
        SOURCES_REDIS_PREFIX: `${redisPrefix}:sources:`,
        SOURCES_LEASE_MS: '3000',
        SOURCES_RTMP_PORT: '0',
        // A conference of 20 rooms on two nodes; either must be able to run them all after a death.
        SOURCES_MAX_PER_NODE: '24',
        SOURCES_ALLOWED_HOSTS: '127.0.0.1',
      });
      processes.push(proc);
      return { proc, port: await portOf(proc, /^sources listening$/) };
    },
    async createRoom(name) {
      const answer = await conference.relayApi('POST', '/rooms', { name });
      if (answer.status !== 201) throw new Error(`POST /rooms answered ${answer.status}`);
      const room = (answer.json as { room: CaptionRoom }).room;
      conference.rooms.push(room);
      publishers.set(
        room.id,
        createPublisher({ url: relayUrl, room: room.outputRoom, token: room.tokens.outputWrite }),
      );
      return room;
    },
    async archived(room) {
      const alive = conference.outputs.find(
        (o) => o.proc.child.exitCode === null && o.proc.child.signalCode === null,
      );
      const port = alive!.port;
      const { status, json } = await callApi(port, 'GET', `/rooms/${room.outputRoom}/archive`, API_KEY);
      if (status !== 200) return -1;
      return (json as { sessions: { captions: number }[] }).sessions.reduce((sum, s) => sum + s.captions, 0);
    },
    async stop() {
      for (const publisher of publishers.values()) publisher.close();
      await killAll(processes);
      await pg.destroy();
    },
  };
  await conference.startRelay();
  return conference;
}
