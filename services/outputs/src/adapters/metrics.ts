import { serviceMetrics } from '@live-captions/http';
import { Counter, Gauge } from 'prom-client';

/** The service's Prometheus figures: the HTTP ones every service has, plus deliveries. */
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
  const leases = new Gauge({ name: 'outputs_leases_held', help: 'Rooms this replica sends for', registers });
  const relay = new Gauge({
    name: 'outputs_relay_rooms',
    help: 'Rooms read from the relay, by connection state',
    labelNames: ['state'] as const,
    registers,
  });
  return { ...base, sent, failed, behind, gaps, leases, relay };
}

export type OutputsMetrics = ReturnType<typeof outputsMetrics>;
