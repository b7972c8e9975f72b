/**
 * The gateway's Prometheus metrics: the shared HTTP figures, plus what inference costs (decode
 * seconds, queue wait, real-time factor) and how full it is (queue depth, stream sessions).
 */

import { type ServiceMetrics, serviceMetrics } from '@live-captions/http';
import type { InferenceQueue } from '@live-captions/inference';
import type { InferenceResult } from '@live-captions/protocol';
import { Gauge, Histogram } from 'prom-client';
import type { SessionStore } from '../domain/session-store.js';

export interface SpeechMetrics extends ServiceMetrics {
  /** Records one answered decode. */
  decoded(result: InferenceResult): void;
}

export function speechMetrics(queue: InferenceQueue, sessions: () => SessionStore): SpeechMetrics {
  const metrics = serviceMetrics('speech');
  const registers = [metrics.register];
  const decodeSeconds = new Histogram({
    name: 'speech_decode_seconds',
    help: 'Inference time of a request (all its decodes), as the worker measured it',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32],
    registers,
  });
  const queueSeconds = new Histogram({
    name: 'speech_queue_wait_seconds',
    help: 'Time a request waited in the queue before a worker started it',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20],
    registers,
  });
  const realTime = new Histogram({
    name: 'speech_real_time_factor',
    help: 'Inference seconds per second of audio (below 1: faster than real time)',
    buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2],
    registers,
  });
  new Gauge({
    name: 'speech_queue_pending',
    help: 'Jobs waiting for a worker (-1 while the queue backend is unreachable)',
    registers,
    async collect() {
      this.set(
        await queue.status().then(
          (status) => status.pending,
          () => -1,
        ),
      );
    },
  });
  new Gauge({
    name: 'speech_queue_workers',
    help: 'Ready workers behind the queue',
    registers,
    async collect() {
      this.set(
        await queue.status().then(
          (status) => status.workers.length,
          () => 0,
        ),
      );
    },
  });
  new Gauge({
    name: 'speech_stream_sessions',
    help: 'Stream sessions alive (every gateway when they share Redis; -1 while unreachable)',
    registers,
    async collect() {
      this.set(
        await sessions()
          .size()
          .catch(() => -1),
      );
    },
  });

  return {
    ...metrics,
    decoded(result) {
      decodeSeconds.observe(result.inferenceSeconds);
      queueSeconds.observe(result.queueSeconds);
      if (result.audioSeconds > 0) realTime.observe(result.inferenceSeconds / result.audioSeconds);
    },
  };
}
