/**
 * The relay's plain HTTP answers: /health with its counters, /metrics, 404 elsewhere.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { Client, relayPerTest } from './helpers.js';

const start = relayPerTest();

describe('http', () => {
  it('GET /health reports the counters', async () => {
    const { relay } = await start();
    const res = await request(relay.server).get('/health').expect(200);
    expect(res.body).toEqual({
      ready: true,
      node: 'relay',
      redis: 'off',
      protocol: 2,
      connections: 0,
      rooms: 2,
      retainedMessages: 0,
      retainedBytes: 0,
      accepted: 0,
      rejected: 0,
      published: 0,
      delivered: 0,
      slowConsumers: 0,
      duplicates: 0,
      replayed: 0,
      gaps: 0,
    });
  });

  it('GET /metrics is Prometheus text with the relay counters', async () => {
    const { relay, url } = await start();
    await expect(Client.open(url, { origin: 'https://evil.example.org' })).rejects.toThrow('HTTP 403');
    const res = await request(relay.server).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^relay_rejected_total 1$/m);
    expect(res.text).toMatch(/^relay_rooms 2$/m);
    expect(res.text).toMatch(/^relay_process_resident_memory_bytes \d+/m);
  });

  it('answers 404 elsewhere', async () => {
    const { relay } = await start();
    await request(relay.server).get('/').expect(404);
  });
});
