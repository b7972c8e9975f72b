/**
 * The production composition as Docker would run it (`docker-compose config`): the base file,
 * the refusal without a required host, and the properties the deployment promises (published
 * ports, read-only secrets, volumes, networks, health, restarts). Its routing (routers, TLS,
 * WebSocket): compose-routing.test.ts.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ComposeConfig,
  composeConfig,
  environmentOf,
  HOSTS,
  healthcheckArgv,
  mountsOf,
  networksOf,
  portsOf,
  repoRoot,
  routersOf,
  runCompose,
  secretsOf,
} from './helpers/compose.js';

import { REQUIRED, SERVICES, traefikStatic } from './helpers/compose-expectations.js';

describe('compose.yaml (docker-compose config)', () => {
  let config: ComposeConfig;
  beforeAll(() => {
    config = composeConfig();
  });

  it('has the twelve services, each restarted, health-checked and memory-limited', () => {
    expect(Object.keys(config.services).sort()).toEqual(SERVICES);
    for (const [name, service] of Object.entries(config.services)) {
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
      expect([name, healthcheckArgv(service)?.length ?? 0]).not.toEqual([name, 0]);
      expect([name, service.mem_limit]).toEqual([name, expect.stringMatching(/^\d+[mg]$/)]);
    }
    expect(composeConfig({ ...HOSTS, WORKER_MEMORY: '6g' }).services.worker!.mem_limit).toBe('6g');
    const sized = composeConfig({ ...HOSTS, APERTIUM_MEMORY: '1g', SOURCES_MEMORY: '2g' });
    expect(sized.services.apertium!.mem_limit).toBe('1g');
    expect(sized.services.sources!.mem_limit).toBe('2g');
  });

  it('names volumes after the project, so two projects never share state', () => {
    for (const [name, volume] of Object.entries(config.volumes ?? {})) {
      expect([name, volume?.name ?? `live-captions-test_${name}`]).toEqual([
        name,
        `live-captions-test_${name}`,
      ]);
    }
  });

  it('caps Redis memory and keeps noeviction for BullMQ', () => {
    const command = config.services.redis!.command as string[];
    expect(command[command.indexOf('--maxmemory') + 1]).toMatch(/^\d+mb$/);
    expect(command[command.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
  });

  it('checks the UI’s home page, not only /site-config.js', () => {
    expect(healthcheckArgv(config.services.ui!)).toEqual([
      'node',
      '/app/healthcheck.mjs',
      'http',
      'http://127.0.0.1:8081/',
    ]);
  });

  it('publishes ports only on Traefik (80, 443) and the stream sources’ push listeners (RTMP, SRT)', () => {
    for (const [name, service] of Object.entries(config.services)) {
      const ports = portsOf(service);
      if (name === 'traefik') {
        expect(ports.map((port) => [port.published, port.target]).sort()).toEqual([
          [443, 443],
          [80, 80],
        ]);
      } else if (name === 'sources') {
        // Not HTTP, so not Traefik's: RTMP on TCP 1935, one UDP port per SRT push source, each
        // published as the port the service listens on and names in its push URLs.
        const env = environmentOf(service);
        const [first, last] = env.SOURCES_SRT_PORTS!.split('-').map(Number) as [number, number];
        const srt = Array.from({ length: last - first + 1 }, (_, i) => `${first + i}:${first + i}/udp`);
        expect(ports.map((port) => `${port.published}:${port.target}/${port.protocol}`).sort()).toEqual(
          [`${env.SOURCES_RTMP_PORT}:${env.SOURCES_RTMP_PORT}/tcp`, ...srt].sort(),
        );
        expect(env.SOURCES_RTMP_PORT).toBe('1935');
        expect([first, last]).toEqual([9000, 9015]);
        expect(env.SOURCES_PUSH_BIND).toBe('0.0.0.0');
        expect(env.SOURCES_PUBLIC_HOST).toBe(HOSTS.CAPTURE_HOST);
      } else {
        expect([name, ports]).toEqual([name, []]);
      }
    }
  });

  it('runs Apertium on the internal translation network only, with the outputs service', () => {
    const apertium = config.services.apertium!;
    expect(networksOf(apertium)).toEqual(['translation']);
    expect(config.networks?.translation?.internal).toBe(true);
    const members = Object.entries(config.services)
      .filter(([, service]) => networksOf(service).includes('translation'))
      .map(([name]) => name)
      .sort();
    expect(members).toEqual(['apertium', 'outputs']);
    expect(apertium.build?.dockerfile).toBe('compose/apertium.Dockerfile');
    expect(apertium.build?.args).toEqual({ APERTIUM_PAIRS: 'apertium-eng-spa apertium-eng-cat' });
    expect(
      composeConfig({ ...HOSTS, APERTIUM_PAIRS: 'apertium-eng-spa apertium-fra-cat' }).services.apertium!
        .build?.args,
    ).toEqual({ APERTIUM_PAIRS: 'apertium-eng-spa apertium-fra-cat' });
    expect(apertium.read_only).toBe(true);
    expect(apertium.cap_drop).toEqual(['ALL']);
  });

  it('gives the stream sources the stores, the gateway, the relay and the access token', () => {
    const sources = config.services.sources!;
    expect(networksOf(sources).sort()).toEqual(['db', 'edge', 'queue']);
    const env = environmentOf(sources);
    expect(env).toMatchObject({
      CAPTION_URL: 'http://speech:8765',
      RELAY_URL: 'ws://relay:8080/ws',
      REDIS_URL: 'redis://redis:6379',
      DATABASE_URL: 'postgres://calendar@postgres:5432/calendar',
    });
    const mounted = secretsOf(sources).map((secret) => secret.path);
    expect(mounted).toContain(env.CAPTION_LOCAL_ENV_FILE);
    expect(mounted).toContain(env.CAPTION_RELAY_CONFIG);
    expect(mounted).toContain('/run/secrets/postgres-password');
  });

  it('mounts secrets read-only, from secrets/ only, and nothing from the host writable but volumes', () => {
    const secretsDir = join(repoRoot, 'secrets');
    for (const [name, file] of Object.entries(config.secrets ?? {})) {
      expect([name, file.file.startsWith(`${secretsDir}/`)]).toEqual([name, true]);
    }
    for (const [name, service] of Object.entries(config.services)) {
      for (const secret of secretsOf(service)) {
        expect(config.secrets).toHaveProperty(secret.source);
        expect(secret.path.startsWith('/run/secrets/')).toBe(true);
      }
      for (const mount of mountsOf(service)) {
        if (mount.type === 'bind')
          expect([name, mount.source, mount.readOnly]).toEqual([name, mount.source, true]);
        // Secrets travel as compose secrets (read-only by design), never as volumes.
        expect(mount.source.startsWith(secretsDir)).toBe(false);
      }
    }
    // Each secret file is mounted where the service is told to read it.
    const speech = environmentOf(config.services.speech!);
    const speechSecrets = secretsOf(config.services.speech!).map((secret) => secret.path);
    expect(speechSecrets).toContain(speech.CAPTION_LOCAL_ENV_FILE);
    expect(speechSecrets).toContain(speech.CAPTION_RELAY_TOKENS_FILE);
    const relay = environmentOf(config.services.relay!);
    expect(secretsOf(config.services.relay!).map((secret) => secret.path)).toContain(
      relay.CAPTION_RELAY_CONFIG,
    );
    expect(config.secrets?.relay_config?.file).toBe(join(secretsDir, 'relay.private.json'));
    expect(config.secrets?.relay_tokens?.file).toBe(join(secretsDir, 'relay-tokens.env'));
    expect(config.secrets?.caption_local?.file).toBe(join(secretsDir, 'caption-local.env'));
  });

  it('keeps state in named volumes: PostgreSQL, Redis, models and ACME', () => {
    const volumeAt = (service: string, target: string) =>
      mountsOf(config.services[service]!).find((mount) => mount.target === target);
    expect(volumeAt('postgres', '/var/lib/postgresql/data')).toMatchObject({ type: 'volume' });
    expect(volumeAt('redis', '/data')).toMatchObject({ type: 'volume' });
    expect(volumeAt('worker', '/models')).toMatchObject({ type: 'volume', readOnly: false });
    expect(volumeAt('traefik', '/acme')).toMatchObject({ type: 'volume' });
    expect(environmentOf(config.services.worker!).CAPTION_MODEL_DIR).toBe('/models');
  });

  it('derives the public addresses from the hostnames', () => {
    expect(environmentOf(config.services.ui!)).toMatchObject({
      RELAY_URL: `wss://${HOSTS.RELAY_HOST}`,
      CAPTURE_URL: `https://${HOSTS.CAPTURE_HOST}/`,
      // Same-origin: the calendar's router serves /wp-json on the UI host.
      CALENDAR_API_URL: `https://${HOSTS.UI_HOST}/wp-json/cal/events/v1/`,
    });
    expect(routersOf(config.services.calendar!).get('calendar')!.rule).toBe(
      `Host(\`${HOSTS.UI_HOST}\`) && PathPrefix(\`/wp-json\`)`,
    );
    expect(environmentOf(config.services.speech!)).toMatchObject({
      CAPTION_ALLOWED_ORIGINS: `https://${HOSTS.UI_HOST}`,
      REDIS_URL: 'redis://redis:6379',
    });
    expect(environmentOf(config.services.traefik!).CERT_EMAIL).toBe(HOSTS.CERT_EMAIL);
  });

  it('runs the relay as uid/gid 1000 and trusts only Traefik’s fixed address', () => {
    expect(config.services.relay!.user).toBe('1000:1000');
    const traefikNetworks = config.services.traefik!.networks as Record<string, { ipv4_address?: string }>;
    const address = traefikNetworks.edge!.ipv4_address;
    expect(address).toBe('172.30.240.2');
    expect(environmentOf(config.services.relay!).RELAY_TRUSTED_PROXIES).toBe(address);
    expect(environmentOf(config.services.speech!).CAPTION_TRUST_PROXY).toBe(address);
    // The calendar's links say https:// behind Traefik.
    expect(environmentOf(config.services.calendar!).CALENDAR_TRUSTED_PROXIES).toBe(address);
  });

  it('keeps Redis and PostgreSQL on internal networks', () => {
    expect(networksOf(config.services.redis!)).toEqual(['queue']);
    expect(networksOf(config.services.postgres!)).toEqual(['db']);
    expect(config.networks?.queue?.internal).toBe(true);
    expect(config.networks?.db?.internal).toBe(true);
    expect(networksOf(config.services.worker!)).not.toContain('edge');
    expect(config.networks?.edge?.name).toBe(traefikStatic.providers.docker.network);
  });

  it('gives the worker the CPU image and no GPU', () => {
    const worker = config.services.worker!;
    expect(worker.build?.dockerfile).toBe('services/worker/Dockerfile');
    expect(worker.deploy?.resources?.reservations?.devices).toBeUndefined();
    expect(environmentOf(worker).CAPTION_MODEL).toBe('base');
  });
});

describe('the composition refuses to start without a required setting', () => {
  for (const missing of REQUIRED) {
    it(`names ${missing} when it is missing or empty`, () => {
      const { [missing]: _removed, ...rest } = HOSTS;
      for (const env of [rest, { ...rest, [missing]: '' }]) {
        const result = runCompose(env);
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(`${missing} is missing`);
      }
    });
  }

  it('names the host with every overlay applied as well', () => {
    const { UI_HOST: _removed, ...rest } = HOSTS;
    for (const overlay of ['gpu', 'auth', 'local'] as const) {
      const result = runCompose(rest, [overlay]);
      expect([overlay, result.code === 0]).toEqual([overlay, false]);
      expect(result.stderr).toContain('UI_HOST is missing');
    }
  });
});
