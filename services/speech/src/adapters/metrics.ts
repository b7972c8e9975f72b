/**
 * The gateway's Prometheus metrics: the shared HTTP figures, plus what inference costs (decode
 * seconds, queue wait, real-time factor) and how full it is (queue depth, streams).
 */

import { type ServiceMetrics, serviceMetrics } from '@live-captions/http';
import type { InferenceQueue } from '@live-captions/inference';
import type { InferenceRequest, InferenceResult } from '@live-captions/protocol';
import { Counter, Gauge, Histogram } from 'prom-client';
import { decodePath } from '../domain/decode-path.js';
import type { StreamLagBoard } from '../domain/stream-lag.js';
import type { StreamStore } from '../domain/stream-store.js';

export interface SpeechMetrics extends ServiceMetrics {
  /** Records one answered decode. */
  decoded(result: InferenceResult, request: InferenceRequest): void;
  /** Records a skip to the live edge (seconds of audio not captioned). */
  skipped(path: 'native' | 'realtime', seconds: number): void;
}

export function speechMetrics(
  queue: InferenceQueue,
  streams: () => StreamStore,
  lag?: StreamLagBoard,
): SpeechMetrics {
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
        await streams()
          .size()
          .catch(() => -1),
      );
    },
  });

  // What the guards removed, per guard and API path (both backends: the result carries it).
  const guard = (name: string, help: string) =>
    new Counter({ name, help, labelNames: ['path'] as const, registers });
  const nonSpeech = guard(
    'speech_guard_non_speech_seconds_total',
    'Seconds of audio without speech (energy gate or VAD) never decoded or answered like silence',
  );
  const phrases = guard(
    'speech_guard_phrases_dropped_total',
    'Known non-speech phrases ("Thank you for watching.") dropped from audio with little speech',
  );
  const loops = guard('speech_guard_loops_cut_total', 'Repetition loops cut back to their first occurrence');
  const unsure = guard(
    'speech_guard_unsure_dropped_total',
    "Segments dropped on whisper.cpp's no-speech probability and average log-probability",
  );
  const skips = guard('speech_live_edge_skips_total', 'Skips to the live edge by the lag watchdog');
  const skippedSeconds = guard(
    'speech_live_edge_skipped_seconds_total',
    'Seconds of audio skipped (never captioned) to catch up with the live edge',
  );
  for (const path of ['v1', 'native', 'realtime']) {
    for (const counter of [nonSpeech, phrases, loops, unsure]) counter.inc({ path }, 0);
  }
  for (const path of ['native', 'realtime'])
    for (const counter of [skips, skippedSeconds]) counter.inc({ path }, 0);
  // Per live stream (the lag watchdog's own figures): the label set is the live streams, at most
  // CAPTION_MAX_STREAMS, and a stream leaves it once idle.
  const perStream = (
    name: string,
    help: string,
    value: (lag: ReturnType<StreamLagBoard['entries']>[number][1]) => number,
  ) =>
    new Gauge({
      name,
      help,
      labelNames: ['stream'] as const,
      registers,
      collect() {
        this.reset();
        for (const [stream, figures] of lag?.entries() ?? []) this.set({ stream }, value(figures));
      },
    });
  perStream(
    'speech_stream_real_time_factor',
    "Inference seconds per audio second of a live stream's recent decodes",
    (l) => l.realTimeFactor,
  );
  perStream(
    'speech_stream_queue_wait_seconds',
    "Queue wait of a live stream's last decode",
    (l) => l.queueWaitSeconds,
  );
  perStream(
    'speech_stream_backlog_seconds',
    'Audio of a live stream captured but not yet captioned, as the stream reports it',
    (l) => l.backlogSeconds,
  );

  return {
    ...metrics,
    decoded(result, request) {
      const path = decodePath(request);
      // A realtime re-decode for deltas (the only non-final request outside windows) would count
      // its turn's guards twice.
      if (result.guards && (request.window || request.final)) {
        nonSpeech.inc({ path }, result.guards.nonSpeechSeconds);
        phrases.inc({ path }, result.guards.phrasesDropped);
        loops.inc({ path }, result.guards.loopsCut);
        unsure.inc({ path }, result.guards.unsureDropped);
      }
      decodeSeconds.observe(result.inferenceSeconds);
      queueSeconds.observe(result.queueSeconds);
      if (result.audioSeconds > 0) realTime.observe(result.inferenceSeconds / result.audioSeconds);
    },
    skipped(path, seconds) {
      skips.inc({ path });
      skippedSeconds.inc({ path }, seconds);
    },
  };
}
