/**
 * Access lines: one per HTTP request and per refused upgrade, an opened and a closed line per
 * WebSocket connection, each with the connection's correlation id (the client's X-Request-ID
 * when it is a plain id), and never a token or a caption.
 */
import { createLogger } from '@live-captions/runtime';
import { logCapture } from '@live-captions/test-services';
import request from 'supertest';
import { createRelay, parseRelayConfig, type Relay } from '../src/app.js';
import { Client, configFile, publishAll, SOURCE, TOKENS, until } from './helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CAPTION = 'the words nobody may read in a log';

let relay: Relay;
let port: number;
let logs: ReturnType<typeof logCapture>;

beforeEach(async () => {
  logs = logCapture();
  relay = createRelay({
    config: parseRelayConfig(configFile()),
    logger: createLogger('relay', { level: 'debug' }, logs.stream),
  });
  port = await relay.listen(0, '127.0.0.1');
});

afterEach(() => relay.close());

const byId = (id: unknown) => logs.lines().filter((line) => line.correlationId === id);

describe('relay access lines', () => {
  it('logs each HTTP request once with its X-Request-ID, and a fresh id when the client sent none', async () => {
    await request(relay.server).get('/health').set('X-Request-ID', 'relay-health-0001').expect(200);
    await request(relay.server).get('/nowhere?token=query-token-000000').expect(404);

    expect(byId('relay-health-0001')).toEqual([
      expect.objectContaining({ msg: 'request', method: 'GET', path: '/health', status: 200 }),
    ]);
    const [missing] = logs.matching(/^request$/).filter((line) => line.path === '/nowhere');
    expect(missing).toMatchObject({ status: 404, correlationId: expect.stringMatching(UUID) });
    expect(logs.text()).not.toContain('query-token');
  });

  it('logs a WebSocket connection opened and closed with its id, never its token or captions', async () => {
    const url = `ws://127.0.0.1:${port}/ws`;
    const writer = await Client.open(url, { headers: { 'X-Request-ID': 'relay-conn-0001' } });
    writer.send({ protocol: 2, join: SOURCE, role: 'write', token: TOKENS.sourceWrite });
    await writer.count(1);
    await publishAll(writer, [CAPTION]);
    writer.close();
    await until(() => logs.matching(/^connection closed$/).length === 1);

    const lines = byId('relay-conn-0001');
    expect(lines.map((line) => line.msg)).toEqual(['connection opened', 'joined', 'connection closed']);
    expect(lines[2]).toMatchObject({ code: 1006, ms: expect.any(Number) });
    expect(logs.text()).not.toContain(TOKENS.sourceWrite);
    expect(logs.text()).not.toContain(CAPTION);
  });

  it('logs a refused upgrade as an access line with its status', async () => {
    const refused = Client.open(`ws://127.0.0.1:${port}/ws`, {
      origin: 'https://elsewhere.example',
      headers: { 'X-Request-ID': 'not a plain id' },
    });
    await expect(refused).rejects.toThrow('HTTP 403');
    await until(() => logs.matching(/^request$/).length === 1);
    const [line] = logs.matching(/^request$/);
    expect(line).toMatchObject({ method: 'GET', path: '/ws', status: 403 });
    // An id outside the plain format is replaced, never copied into the logs.
    expect(line!.correlationId).toMatch(UUID);
    expect(logs.text()).not.toContain('not a plain id');
  });
});
