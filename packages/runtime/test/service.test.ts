import { createServer } from 'node:net';
import { listening } from '../src/index.js';

describe('listening', () => {
  it('resolves with the bound port, and rejects when the port is taken', async () => {
    const first = createServer();
    const port = await listening(first.listen(0, '127.0.0.1'));
    expect(port).toBe((first.address() as { port: number }).port);
    const second = createServer();
    await expect(listening(second.listen(port, '127.0.0.1'))).rejects.toMatchObject({ code: 'EADDRINUSE' });
    first.close();
  });
});
