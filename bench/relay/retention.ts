// `pnpm bench relay --scenario=retention`: what the relay's 30-minute history costs per room.
//
// 1. In memory (each relay node): the history a room holds after 30 minutes at a realistic rate,
//    built with the relay's own code (its Retention and caption frames, as a publish builds them),
//    for --rooms rooms of each profile, measured as V8 heap + external bytes after a full GC:
//    - reviewed: an output room, one final caption every 2 s (900 in 30 minutes);
//    - source: a capture room, 4 interim frames a second and a final every 3 s (bounded by
//      `replayRoomBytes` before 30 minutes pass).
// 2. In Redis (cluster mode): a relay node on a private redis-server takes 30 minutes of the
//    reviewed profile through a socket; Redis's MEMORY USAGE of the room's stream, and of its
//    delivery identities (one key per caption for `replayMs`).
// Flags: --rooms=20.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { captionFrame, DEFAULT_LIMITS, parsePublish, Retention, RoomLog } from '@live-captions/relay';
import { arg, joinAsWriter, openSocket, pause, writeRelayConfig } from './clients.js';
import { startServer, stopServer } from './servers.js';

const ROOMS = arg('rooms', 20);
const MINUTES = 30;
const SENTENCES = [
  'Good evening everyone, and welcome to the annual meeting of the council.',
  'The first item on the agenda is the budget for the coming year.',
  'We received forty-two written comments from residents about the new cycle lanes,',
  'and most of them asked for the work to start before the summer holidays.',
  'Could the members who have not yet signed the register please do so now?',
  'Thank you. I will now hand over to the treasurer for her report.',
];
const text = (n: number) => SENTENCES[n % SENTENCES.length]!;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
function used(): number {
  for (let i = 0; i < 3; i++) gc();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.external;
}

/** The frames one room publishes in 30 minutes: [ms, caption body] in time order. */
function profile(kind: 'reviewed' | 'source'): [number, string][] {
  const frames: [number, string][] = [];
  const delivery = { client: 'bench_publisher_0001', sequence: 1 };
  const body = (fields: Record<string, unknown>) => parsePublish({ msg: true, ...fields, delivery }).body;
  for (let ms = 0, n = 0; ms < MINUTES * 60_000; ms += 250, n++) {
    if (kind === 'reviewed') {
      if (ms % 2000 === 0) frames.push([ms, body({ final: text(n / 8), id: n / 8, ln: 'en' })]);
      continue;
    }
    const sentence = text(Math.floor(ms / 3000));
    const id = `w${Math.floor(ms / 3000)}`;
    if (ms % 3000 === 0) frames.push([ms, body({ final: sentence, id, ln: 'en' })]);
    else
      frames.push([
        ms,
        body({ interm: sentence.slice(0, Math.ceil((sentence.length * (ms % 3000)) / 3000)), id, ln: 'en' }),
      ]);
  }
  return frames;
}

function inMemory(kind: 'reviewed' | 'source'): void {
  const frames = profile(kind);
  // The per-room limits alone: the global caps (replayTotalMessages, replayBytes) bound the sum.
  const retention = new Retention({
    ...DEFAULT_LIMITS,
    replayTotalMessages: Number.POSITIVE_INFINITY,
    replayBytes: Number.POSITIVE_INFINITY,
  });
  const rooms: RoomLog[] = [];
  const before = used();
  const start = Date.now() - MINUTES * 60_000;
  for (let r = 0; r < ROOMS; r++) {
    const log = new RoomLog(`epoch${String(r).padStart(10, '0')}`);
    rooms.push(log);
    for (const [ms, body] of frames) {
      const at = start + ms;
      retention.append(log, {
        at,
        frame: Buffer.from(captionFrame(body, log.epoch, log.next, at)),
        delivery: `bench_publisher_${String(r).padStart(4, '0')}:${log.next}`,
      });
    }
  }
  const bytes = (used() - before) / ROOMS;
  const room = rooms[0]!;
  const kept = room.entries.length;
  const span = ((room.entries.at(-1)!.at - room.entries[0]!.at) / 60_000).toFixed(1);
  console.log(
    `${kind.padEnd(9)} ${String(frames.length).padStart(5)} frames published, ${String(kept).padStart(5)} kept (${span} min, ` +
      `${(room.bytes / 1024).toFixed(0)} KiB of frames): ${(bytes / 1024 / 1024).toFixed(2)} MiB per room, ` +
      `${Math.round(bytes / kept)} B per caption (${ROOMS} rooms)`,
  );
  retention.clear(room);
}

// ioredis from the relay's dependencies (bench/ is not a package).
const { Redis } = createRequire(new URL('../../services/relay/package.json', import.meta.url))('ioredis') as {
  Redis: new (
    url: string,
  ) => {
    call(...args: string[]): Promise<unknown>;
    scan(...args: (string | number)[]): Promise<[string, string[]]>;
    disconnect(): void;
  };
};

async function inRedis(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-retention-'));
  const room = {
    name: 'output',
    read: 'benchRead_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    write: 'benchWrite_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
  };
  const server = await startServer(
    'cluster-stream',
    writeRelayConfig(dir, room, { messagesPerSecond: 100_000 }),
  );
  try {
    const ws = await openSocket(server.nodes[0]!.url);
    await joinAsWriter(ws, server.kind, room.name, room.write);
    const bodies = profile('reviewed');
    let acked = 0;
    (ws as unknown as { on(event: string, listener: () => void): void }).on('message', () => {
      acked += 1;
    });
    for (const [n, [, body]] of bodies.entries()) {
      const caption = JSON.parse(body) as Record<string, unknown>;
      ws.send(JSON.stringify({ ...caption, delivery: { client: 'bench_publisher_0001', sequence: n + 1 } }));
      if (n % 100 === 99) while (acked < n + 1) await pause(5);
    }
    while (acked < bodies.length) await pause(5);
    const redis = new Redis(server.redis!.url);
    const stream = Number(await redis.call('MEMORY', 'USAGE', `relay:{${room.name}}:log`, 'SAMPLES', '0'));
    let keys = 0;
    let sample = 0;
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `relay:{${room.name}}:d:*`, 'COUNT', 1000);
      cursor = next;
      keys += found.length;
      if (sample === 0 && found[0]) sample = Number(await redis.call('MEMORY', 'USAGE', found[0]));
    } while (cursor !== '0');
    redis.disconnect();
    ws.terminate();
    console.log(
      `redis     reviewed room, ${bodies.length} captions: stream ${(stream / 1024).toFixed(0)} KiB, ` +
        `${keys} delivery keys x ${sample} B = ${((keys * sample) / 1024).toFixed(0)} KiB, ` +
        `${((stream + keys * sample) / 1024 / 1024).toFixed(2)} MiB per room`,
    );
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function retentionScenario(): Promise<void> {
  console.log(
    `Retention: ${MINUTES} minutes per room with the default limits (replayMs ${DEFAULT_LIMITS.replayMs}, ` +
      `replayRoomBytes ${DEFAULT_LIMITS.replayRoomBytes}, replayMessages ${DEFAULT_LIMITS.replayMessages})\n`,
  );
  inMemory('reviewed');
  inMemory('source');
  await inRedis();
}
