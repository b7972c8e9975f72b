// The baseline: a bare `ws` broadcast server. Readers send "read" first; every other frame is
// broadcast as is to all readers. No rooms, tokens, acks, history or limits.
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/** The part of `ws` the baseline uses (bench/ is not a package, so no ws types here). */
interface Socket {
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'close', listener: () => void): void;
  send(data: Buffer | string, options?: { binary: boolean }): void;
}
interface Server {
  on(event: 'connection', listener: (ws: Socket) => void): void;
  on(event: 'listening', listener: () => void): void;
  address(): AddressInfo;
}

// bench/ is not a workspace package: borrow `ws` from the relay's dependencies.
const { WebSocketServer } = createRequire(new URL('../../services/relay/package.json', import.meta.url))(
  'ws',
) as {
  WebSocketServer: new (options: object) => Server;
};

const wss = new WebSocketServer({
  host: '127.0.0.1',
  port: 0,
  perMessageDeflate: false,
  clientTracking: false,
});
const readers = new Set<Socket>();
wss.on('connection', (ws) => {
  ws.on('message', (data, isBinary) => {
    if (!isBinary && data.toString() === 'read') {
      readers.add(ws);
      ws.send('ok');
      return;
    }
    for (const reader of readers) reader.send(data, { binary: false });
  });
  ws.on('close', () => readers.delete(ws));
});
wss.on('listening', () => console.log(JSON.stringify({ port: wss.address().port })));
process.on('SIGTERM', () => process.exit(0));
