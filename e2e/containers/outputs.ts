/**
 * The outputs service in the containers: an archive destination added through the API with the
 * output room's write token, a caption published to that room through the relay container, and
 * the session's WebVTT downloaded with the read token, its rows in the PostgreSQL container.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { parseWebVtt } from '@live-captions/caption-files';
import type { ArchiveSession, Destination } from '@live-captions/protocol';
import { RelayPublisher, type SocketConstructor } from '@live-captions/relay-client';
import { parseEnvFile } from '@live-captions/runtime';
import { readRelayTokens } from '@live-captions/secret-files';
import { until } from '../deploy/helpers/processes.js';
import { psql } from './harness.js';

export interface OutputRoom {
  room: string;
  read: string;
  write: string;
}

/** The output room and its tokens, from the relay-tokens.env `make (local-)secrets` wrote. */
export function outputRoomIn(secretsDir: string): OutputRoom {
  const tokens = readRelayTokens(parseEnvFile(readFileSync(join(secretsDir, 'relay-tokens.env'), 'utf8')));
  const { outputRoom, outputRead, outputWrite } = tokens;
  if (!outputRoom || !outputRead || !outputWrite) throw new Error(`no output room in ${secretsDir}`);
  return { room: outputRoom, read: outputRead, write: outputWrite };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Adds an archive, publishes `text` to the room and returns the session's WebVTT cues. */
export async function archiveRoundTrip(
  local: boolean,
  outputs: string,
  relayUrl: string,
  room: OutputRoom,
  text: string,
  WebSocket: SocketConstructor,
): Promise<{ cues: ReturnType<typeof parseWebVtt>; rows: string }> {
  const base = `${outputs}/rooms/${encodeURIComponent(room.room)}`;
  // The read token may download, never manage.
  expect((await fetch(`${base}/destinations`, { headers: bearer(room.read) })).status).toBe(401);
  const added = await fetch(`${base}/destinations`, {
    method: 'POST',
    headers: { ...bearer(room.write), 'Content-Type': 'application/json' },
    body: JSON.stringify({ kind: 'archive' }),
  });
  expect(added.status).toBe(201);
  const { destination } = (await added.json()) as { destination: Destination };
  // A room's first join starts at the relay's live edge: publish once the service reads the room.
  await until(
    'the archive to read the room',
    async () => {
      const list = (await (await fetch(`${base}/destinations`, { headers: bearer(room.write) })).json()) as {
        destinations: Destination[];
      };
      const state = list.destinations.find((item) => item.id === destination.id)?.state;
      return state !== undefined && state !== 'starting';
    },
    30_000,
  );
  const publisher = new RelayPublisher({ url: relayUrl, room: room.room, token: room.write, WebSocket });
  try {
    await until('the publisher to join', () => publisher.state === 'joined', 30_000);
    expect(publisher.publish({ final: text, id: 'ctest-1' })).toBe(true);
    let session: ArchiveSession | undefined;
    await until(
      'the archived caption',
      async () => {
        const answer = await fetch(`${base}/archive`, { headers: bearer(room.read) });
        const { sessions } = (await answer.json()) as { sessions: ArchiveSession[] };
        session = sessions.find((item) => item.captions > 0);
        return session !== undefined;
      },
      30_000,
    );
    const file = await fetch(`${base}/archive/${session!.id}.vtt`, { headers: bearer(room.read) });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/vtt/);
    return { cues: parseWebVtt(await file.text()), rows: psql(local, 'select count(*) from out_archive') };
  } finally {
    publisher.close();
  }
}
