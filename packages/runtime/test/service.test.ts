import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeServer, createLogger, KEEP_ALIVE_MS, listening, reloadOnHangup } from '../src/index.js';

describe('listening', () => {
  it('resolves with the bound port, and rejects when the port is taken', async () => {
    const first = createServer();
    const port = await listening(first.listen(0, '127.0.0.1'));
    expect(port).toBe((first.address() as { port: number }).port);
    const second = createServer();
    await expect(listening(second.listen(port, '127.0.0.1'))).rejects.toMatchObject({ code: 'EADDRINUSE' });
    first.close();
  });

  /** Writes one request on `socket` and resolves with the whole response (Content-Length bodies). */
  function exchange(socket: Socket, request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (end >= 0 && length !== undefined && text.length >= end + 4 + Number(length)) {
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve(text);
        }
      };
      const onClose = () => reject(new Error(`closed after ${JSON.stringify(text)}`));
      socket.on('data', onData);
      socket.once('close', onClose);
      socket.write(request);
    });
  }

  it('keeps an idle HTTP connection beyond the 5 s after which Node closes it by default', async () => {
    const server = createHttpServer((req, res) => {
      req.resume();
      req.on('end', () => res.end(req.method));
    });
    const port = await listening(server.listen(0, '127.0.0.1'));
    const socket = connect(port, '127.0.0.1');
    try {
      const first = await exchange(socket, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(first).toMatch(new RegExp(`^keep-alive: timeout=${KEEP_ALIVE_MS / 1000}\\r$`, 'im'));
      // What a proxy's pooled connection sees between two requests.
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const body = '{}';
      const second = await exchange(
        socket,
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(second).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nPOST$/);
    } finally {
      socket.destroy();
      server.close();
    }
  }, 15_000);
});

describe('reloadOnHangup', () => {
  // Jest's sandbox gives each suite its own `process` emitter: the signal is emitted on it, as
  // Node does on the real one when the process gets SIGHUP.
  const hangUp = () => process.emit('SIGHUP', 'SIGHUP');

  afterEach(() => {
    process.removeAllListeners('SIGHUP');
  });

  it('applies a reload on SIGHUP and logs it; a reload that throws keeps the running one and says why', async () => {
    const lines: { level: number; msg: string; rooms?: number; err?: string }[] = [];
    const logger = createLogger(
      'test',
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    let file: number | 'broken' = 2;
    let running = 1;
    reloadOnHangup(logger, 'rooms', () => {
      if (file === 'broken') throw new Error('secrets/relay.private.json: rooms: expected an object');
      running = file;
      return { rooms: running };
    });
    hangUp();
    await sleep(50);
    expect(running).toBe(2);
    expect(lines.at(-1)).toMatchObject({ msg: 'rooms reloaded', rooms: 2 });
    file = 'broken';
    hangUp();
    await sleep(50);
    expect(running).toBe(2);
    expect(lines.at(-1)).toMatchObject({
      level: 50,
      msg: 'reload refused; keeping the running rooms',
      err: 'secrets/relay.private.json: rooms: expected an object',
    });
  });
});

describe('closeServer', () => {
  it('resolves once the server is closed, an idle keep-alive connection included', async () => {
    const server = createHttpServer((_req, res) => res.end('ok'));
    const port = await listening(server.listen(0, '127.0.0.1'));
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    // Without closing the idle connection too, close() would wait KEEP_ALIVE_MS for it.
    await closeServer(server);
    await ended;
    expect(server.listening).toBe(false);
  });
});
