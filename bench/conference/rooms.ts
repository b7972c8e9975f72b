import type { CaptionRoom, RelayCaption } from '@live-captions/protocol';
import { createPublisher, createReader } from '@live-captions/relay-client/node';
import { callApi } from '@live-captions/test-services';
import { type Publisher, publish } from '../lib/clip-publisher.js';
import { API_KEY, type Conference, sleep } from './stack.js';

export interface Arrival {
  caption: RelayCaption;
  at: number;
}

export type StreamKind = 'rtmp' | 'hls';

export interface BenchRoom {
  room: CaptionRoom;
  /** How its source pulls the stream: RTMP from nginx, or the HLS nginx cuts of it. */
  kind: StreamKind;
  publisher: Publisher;
  sourceId: string;
  /** Source room captions (finals and gap markers) as the forwarder got them. */
  source: Arrival[];
  /** Output room captions as its reader got them (originals and translations). */
  output: Arrival[];
  close(): void;
}

/** Retries `call` until it answers `ok` (the services pick a new room up within 2 s). */
async function retry<T>(
  what: string,
  call: () => Promise<{ status: number; json: unknown; text: string }>,
  ok: number,
): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await call();
    if (res.status === ok) return res.json as T;
    if (Date.now() > deadline) throw new Error(`${what}: ${res.status} ${res.text}`);
    await sleep(250);
  }
}

export async function openRoom(
  conference: Conference,
  room: CaptionRoom,
  wav: string,
  kind: StreamKind,
): Promise<BenchRoom> {
  const publisher = publish(wav, `rtmp://127.0.0.1:${conference.mediaPort}/live/${room.id}`);
  const url =
    kind === 'hls'
      ? `http://127.0.0.1:${conference.hlsPort}/hls/${room.id}.m3u8`
      : `rtmp://127.0.0.1:${conference.mediaPort}/live/${room.id}`;
  const source: Arrival[] = [];
  const output: Arrival[] = [];
  const outputPublisher = createPublisher({
    url: conference.relayWs,
    room: room.outputRoom,
    token: room.tokens.outputWrite,
  });
  // The editor's live step: each final (gap markers included, with their label) goes on as it came.
  const forwarder = createReader({
    url: conference.relayWs,
    room: room.sourceRoom,
    token: room.tokens.sourceRead,
    onCaption: (caption) => {
      source.push({ caption, at: Date.now() });
      if (!('final' in caption) || caption.final === undefined) return;
      outputPublisher.publish({
        final: caption.final,
        id: caption.id,
        ...(caption.label !== undefined ? { label: caption.label } : {}),
        ...(caption.ln !== undefined ? { ln: caption.ln } : {}),
      });
    },
  });
  const reader = createReader({
    url: conference.relayWs,
    room: room.outputRoom,
    token: room.tokens.outputRead,
    onCaption: (caption) => output.push({ caption, at: Date.now() }),
  });
  const outputsApi = (method: string, path: string, body?: unknown) =>
    callApi(conference.outputsPort, method, path, room.tokens.outputWrite, body);
  await retry(
    `archive of ${room.outputRoom}`,
    () => outputsApi('POST', `/rooms/${room.outputRoom}/destinations`, { kind: 'archive' }),
    201,
  );
  await retry(
    `translation of ${room.outputRoom}`,
    () => outputsApi('POST', `/rooms/${room.outputRoom}/translations`, { target: 'es', engine: 'apertium' }),
    201,
  );
  const created = await retry<{ source: { id: string } }>(
    `source of ${room.sourceRoom}`,
    () =>
      callApi(conference.sourcesPort, 'POST', '/sources', API_KEY, {
        room: room.sourceRoom,
        name: `${room.name} stream`,
        input: { kind: 'pull', url },
      }),
    201,
  );
  return {
    room,
    kind,
    publisher,
    sourceId: created.source.id,
    source,
    output,
    close() {
      forwarder.close();
      reader.close();
      outputPublisher.close();
    },
  };
}
