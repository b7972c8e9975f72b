/**
 * A refused upgrade is an HTTP answer the client must be able to read: the relay may not reset
 * the connection under it, even when the client had already sent more than its request.
 */
import { connect } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { relayPerTest } from './helpers.js';

const start = relayPerTest();

/**
 * Sends `request` with `extra` bytes right behind it (frames a client queued before its answer),
 * not reading until all is written. Resolves with everything read once the connection closed
 * cleanly; rejects on a reset.
 */
function sendThenRead(port: number, request: string, extra: Buffer): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', (hadError) => {
      if (!hadError) resolve(Buffer.concat(chunks).toString('latin1'));
    });
    socket.pause();
    socket.end(Buffer.concat([Buffer.from(request), extra]), () => socket.resume());
  });
}

describe('a refused upgrade', () => {
  it('is read whole by the client, the connection closed cleanly rather than reset', async () => {
    const { port } = await start();
    const request = [
      'GET /not-ws HTTP/1.1',
      'Host: 127.0.0.1',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      '',
      '',
    ].join('\r\n');
    const answer = await sendThenRead(port, request, Buffer.alloc(8 * 1024 * 1024, 0x81));
    expect(answer).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(answer.endsWith('\r\n\r\nNot found')).toBe(true);
  });
});
