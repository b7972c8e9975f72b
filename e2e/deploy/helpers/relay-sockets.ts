/**
 * The relay clients the smoke test plays the pages with: readers that keep the finals they
 * receive (the editor's and the overlay's), publishers (the capture page's and the editor's),
 * all closed together once the test is done.
 */
import { RelayPublisher, RelayReader } from '@live-captions/relay-client';
import { WebSocket } from './clients.js';
import { until } from './processes.js';

/** The finals a reader has received, in order. */
export interface CaptionReader {
  captions: string[];
}

export class RelaySockets {
  readonly #sockets: { close(): void }[] = [];

  constructor(readonly url: string) {}

  /** A reader of `room` that keeps each final it receives. */
  reader(room: string, token: string): CaptionReader {
    const reader: CaptionReader = { captions: [] };
    this.#sockets.push(
      new RelayReader({
        url: this.url,
        room,
        token,
        WebSocket,
        onCaption: (caption) => {
          if ('final' in caption && caption.final) reader.captions.push(caption.final);
        },
      }),
    );
    return reader;
  }

  publisher(room: string, token: string): RelayPublisher {
    const publisher = new RelayPublisher({ url: this.url, room, token, WebSocket });
    this.#sockets.push(publisher);
    return publisher;
  }

  close(): void {
    for (const socket of this.#sockets) socket.close();
  }
}

export function waitForCaption(reader: CaptionReader, text: string) {
  return until(`"${text}" to arrive`, () => reader.captions.includes(text), 15_000);
}
