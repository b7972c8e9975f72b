import { serviceMetrics } from '@live-captions/http';
import { Counter, Gauge } from 'prom-client';

/**
 * The service's Prometheus figures: the HTTP ones every service has, plus its sources'.
 *
 * The declarations below look alike across services but are not one rule: each is one figure's
 * own name, help and labels. What every service's metrics share (one registry, the HTTP figures,
 * the process defaults) is written once, in serviceMetrics of @live-captions/http.
 */
export function sourcesMetrics() {
  const base = serviceMetrics('sources');
  const registers = [base.register];
  const captions = new Counter({
    name: 'sources_captions_sent_total',
    help: 'Captions of stream sources the relay acknowledged',
    registers,
  });
  const reconnects = new Counter({
    name: 'sources_reconnects_total',
    help: 'ffmpeg restarts after an input ended, stalled or could not be opened',
    registers,
  });
  const running = new Gauge({
    name: 'sources_running',
    help: 'Sources this replica runs, by state',
    labelNames: ['state'] as const,
    registers,
  });
  const behind = new Gauge({
    name: 'sources_behind_seconds',
    help: 'Audio received and not yet captioned, per source this replica runs',
    labelNames: ['source'] as const,
    registers,
  });
  const refused = new Counter({
    name: 'sources_egress_refused_total',
    help: 'Requests of ffmpeg the egress proxy refused (private or loopback hosts not listed)',
    registers,
  });
  return { ...base, captions, reconnects, running, behind, refused };
}

export type SourcesMetrics = ReturnType<typeof sourcesMetrics>;
