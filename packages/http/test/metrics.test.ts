import { describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { METRICS_PATH, serviceMetrics } from '../src/index.js';

function app() {
  const metrics = serviceMetrics('test');
  const server = express();
  server.use(metrics.track);
  server.get(METRICS_PATH, metrics.serve);
  server.use((_req, res) => {
    res.status(404).type('text/plain').send('Not found\n');
  });
  return server;
}

describe('serviceMetrics().serve', () => {
  it('answers the exact path only: the proxy hides exactly /metrics', async () => {
    const server = app();
    const res = await request(server).get('/metrics').expect(200);
    expect(res.text).toContain('test_process_cpu_seconds_total');
    expect((await request(server).get('/metrics?debug=1').expect(200)).text).toContain(
      'test_http_requests_total',
    );
    // Express matches these to the /metrics route; they must not reach the figures.
    for (const path of ['/METRICS', '/Metrics', '/metrics/', '/METRICS/']) {
      const other = await request(server).get(path);
      expect([path, other.status]).toEqual([path, 404]);
      expect(other.text).not.toContain('process_cpu_seconds_total');
    }
  });
});
