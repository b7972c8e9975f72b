/**
 * How Traefik routes the production composition (`docker-compose config`): the Docker API only
 * through the read-only socket proxy, each public service by its host over HTTPS, the relay's
 * WebSocket unbuffered, the outputs API under /outputs/, no dashboard without the auth overlay,
 * compression where it helps. The rest of the composition: compose.test.ts.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ComposeConfig,
  composeConfig,
  environmentOf,
  HOSTS,
  mountsOf,
  networksOf,
  portsOf,
  routersOf,
} from './helpers/compose.js';
import { checkRouters, traefikDynamic, traefikStatic } from './helpers/compose-expectations.js';

describe('compose.yaml routing (docker-compose config)', () => {
  let config: ComposeConfig;
  beforeAll(() => {
    config = composeConfig();
  });

  it('gives Traefik the Docker API only through the read-only socket proxy', () => {
    const traefik = config.services.traefik!;
    expect(mountsOf(traefik).some((mount) => mount.source.includes('docker.sock'))).toBe(false);
    expect(traefikStatic.providers.docker.endpoint).toBe('tcp://socket-proxy:2375');
    const proxy = config.services['socket-proxy']!;
    expect(mountsOf(proxy)).toEqual([
      { type: 'bind', source: '/var/run/docker.sock', target: '/var/run/docker.sock', readOnly: true },
    ]);
    const env = environmentOf(proxy);
    expect(env).toMatchObject({ CONTAINERS: '1', POST: '0' });
    // Nothing else of the API: no images, networks, volumes, exec, swarm ...
    const allowed = Object.entries(env)
      .filter(([, value]) => value === '1')
      .map(([key]) => key)
      .sort();
    expect(allowed).toEqual(['CONTAINERS', 'EVENTS', 'PING', 'VERSION']);
    expect(networksOf(proxy)).toEqual(['docker']);
    expect(networksOf(traefik).sort()).toEqual(['docker', 'edge']);
    expect(config.networks?.docker?.internal).toBe(true);
    expect(portsOf(proxy)).toEqual([]);
  });

  it('routes each public service by its host over HTTPS with the Let’s Encrypt resolver', () => {
    checkRouters(config);
  });

  it('passes the relay WebSocket: /ws and / (mapped onto /ws) only, nothing that buffers', () => {
    const relay = config.services.relay!;
    const router = routersOf(relay).get('relay')!;
    expect(router.middlewares!.split(',')).toEqual(['relay-ws-path', 'security-headers@file']);
    expect(relay.labels?.['traefik.http.middlewares.relay-ws-path.replacepath.path']).toBe('/ws');
    const labels = Object.keys(relay.labels ?? {}).join('\n');
    expect(labels).not.toMatch(/buffering|compress|retry/i);
    // /health and /metrics are not public.
    expect(router.rule).not.toContain('PathPrefix');
  });

  it('serves the outputs API under /outputs/ on the UI host, on the networks of its stores', () => {
    const outputs = config.services.outputs!;
    const router = routersOf(outputs).get('outputs')!;
    expect(router.middlewares!.split(',')).toEqual(['outputs-prefix', 'security-headers@file']);
    expect(outputs.labels?.['traefik.http.middlewares.outputs-prefix.stripprefix.prefixes']).toBe('/outputs');
    // PostgreSQL for cursors, outboxes and the archive; Redis for the leases; the relay on edge.
    // Apertium on the internal translation network.
    expect(networksOf(outputs).sort()).toEqual(['db', 'edge', 'queue', 'translation']);
    expect(environmentOf(outputs)).toMatchObject({
      RELAY_URL: 'ws://relay:8080/ws',
      REDIS_URL: 'redis://redis:6379',
      CAPTION_RELAY_CONFIG: '/run/secrets/relay.private.json',
      OUTPUTS_APERTIUM_URL: 'http://apertium:2737',
    });
    expect(environmentOf(config.services.ui!).OUTPUTS_URL).toBe(`https://${HOSTS.UI_HOST}/outputs/`);
  });

  it('has no dashboard or queue-view router without the auth overlay', () => {
    expect(Object.keys(config.services.traefik!.labels ?? {})).toEqual([]);
    expect(routersOf(config.services.traefik!).size).toBe(0);
    expect([...routersOf(config.services.speech!).keys()]).toEqual(['speech']);
  });

  it('compresses the calendar and UI answers, and nothing of speech or the relay', () => {
    expect(traefikDynamic.http.middlewares.compress!.compress!.encodings).toContain('gzip');
    for (const [name, compressed] of [
      ['calendar', true],
      ['ui', true],
      ['speech', false],
      ['relay', false],
    ] as const) {
      const router = routersOf(config.services[name]!).get(name)!;
      expect([name, (router.middlewares ?? '').split(',').includes('compress@file')]).toEqual([
        name,
        compressed,
      ]);
    }
  });
});
