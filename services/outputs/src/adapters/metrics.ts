import { serviceMetrics } from '@live-captions/http';
import { Counter, Gauge, Histogram } from 'prom-client';

/**
 * The service's Prometheus figures: the HTTP ones every service has, plus deliveries.
 *
 * The declarations below look alike across services but are not one rule: each is one figure's
 * own name, help and labels. What every service's metrics share (one registry, the HTTP figures,
 * the process defaults) is written once, in serviceMetrics of @live-captions/http.
 */
export function outputsMetrics() {
  const base = serviceMetrics('outputs');
  const registers = [base.register];
  const sent = new Counter({
    name: 'outputs_captions_sent_total',
    help: 'Captions delivered (platform 2xx, or stored in the archive), by destination kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const failed = new Counter({
    name: 'outputs_posts_failed_total',
    help: 'Platform requests that failed and will be retried, by destination kind',
    labelNames: ['kind'] as const,
    registers,
  });
  const behind = new Gauge({
    name: 'outputs_destination_behind',
    help: 'Captions accepted but not yet delivered, per destination this replica sends to',
    labelNames: ['destination', 'kind'] as const,
    registers,
  });
  const gaps = new Counter({
    name: 'outputs_relay_gaps_total',
    help: 'Gaps the relay reported (captions missed: history expired or relay restarted)',
    registers,
  });
  const refused = new Counter({
    name: 'outputs_captions_refused_total',
    help: 'Captions PostgreSQL refused to store (a data error): skipped, the room went on',
    registers,
  });
  const skipped = new Counter({
    name: 'outputs_captions_skipped_total',
    help: 'Captions archived but not sent to a live platform: older than OUTPUTS_LIVE_MAX_AGE_MS when their turn came',
    labelNames: ['kind'] as const,
    registers,
  });
  const leases = new Gauge({ name: 'outputs_leases_held', help: 'Rooms this replica sends for', registers });
  const relay = new Gauge({
    name: 'outputs_relay_rooms',
    help: 'Rooms read from the relay, by connection state',
    labelNames: ['state'] as const,
    registers,
  });
  const translated = new Counter({
    name: 'outputs_translations_published_total',
    help: 'Translated captions (and corrections, and clears) the relay acked, by target language',
    labelNames: ['target'] as const,
    registers,
  });
  const translationLatency = new Histogram({
    name: 'outputs_translation_latency_seconds',
    help: "From an original reaching this service to the relay's ack of its first translation",
    labelNames: ['target'] as const,
    buckets: [0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 30],
    registers,
  });
  const engineErrors = new Counter({
    name: 'outputs_translation_engine_errors_total',
    help: 'Failed translation engine calls, by engine and error code',
    labelNames: ['engine', 'code'] as const,
    registers,
  });
  const translationBehind = new Gauge({
    name: 'outputs_translation_behind',
    help: 'Original captions accepted but not yet translated and published, per target this replica runs',
    labelNames: ['translation', 'target'] as const,
    registers,
  });
  return {
    ...base,
    sent,
    failed,
    behind,
    gaps,
    refused,
    skipped,
    leases,
    relay,
    translated,
    translationLatency,
    engineErrors,
    translationBehind,
  };
}

export type OutputsMetrics = ReturnType<typeof outputsMetrics>;
