/**
 * `GET /metrics`: the HTTP figures by route pattern and what inference costs, after real decodes
 * on the in-process engine.
 */
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { RunningGateway } from './helpers/gateway.js';
import { useInProcessGateway } from './helpers/native-stack.js';
import { pcmBody, sine } from './helpers/wav.js';

let gateway: RunningGateway;
useInProcessGateway((started) => {
  gateway = started;
});

describe('GET /metrics', () => {
  it('counts requests by route pattern and status, and times decodes and their real-time factor', async () => {
    const local = { 'X-Caption-Local': '1', 'Content-Type': 'application/octet-stream' };
    await request(gateway.base)
      .post('/transcribe')
      .set(local)
      .send(pcmBody(sine(16000, 2, 440, 0.3)))
      .expect(200);
    await request(gateway.base).delete('/streams/stream-metrics-1').set('X-Caption-Local', '1').expect(200);
    await request(gateway.base).get('/nothing-here').expect(404);

    const res = await request(gateway.base).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(text).toMatch(
      /^speech_http_requests_total\{route="\/transcribe",method="POST",status="200"\} 1$/m,
    );
    // Route patterns, never raw paths: the label set stays bounded.
    expect(text).toMatch(
      /^speech_http_requests_total\{route="\/streams\/:stream_id",method="DELETE",status="200"\} 1$/m,
    );
    expect(text).toMatch(/^speech_http_requests_total\{route="unmatched",method="GET",status="404"\} 1$/m);
    expect(text).not.toContain('stream-metrics-1');
    expect(text).toMatch(
      /^speech_http_request_duration_seconds_count\{route="\/transcribe",method="POST"\} 1$/m,
    );
    expect(text).toMatch(/^speech_decode_seconds_count 1$/m);
    expect(text).toMatch(/^speech_queue_wait_seconds_count 1$/m);
    expect(text).toMatch(/^speech_real_time_factor_count 1$/m);
    expect(text).toMatch(/^speech_queue_pending 0$/m);
    expect(text).toMatch(/^speech_queue_workers 1$/m);
    expect(text).toMatch(/^speech_stream_sessions 1$/m);
    expect(text).toContain('speech_process_resident_memory_bytes');
  });

  it('answers only at the exact path that the proxy hides (no /METRICS, no /metrics/)', async () => {
    for (const path of ['/METRICS', '/metrics/']) {
      const res = await request(gateway.base).get(path).expect(404);
      expect(res.text).not.toContain('speech_process_resident_memory_bytes');
    }
  });
});
