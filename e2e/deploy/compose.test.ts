/**
 * The production composition as Docker would run it (`docker-compose config`): the base file,
 * each overlay, the refusal without a required host, and the properties the deployment promises
 * (routers, TLS, WebSocket, auth, published ports, read-only secrets, health, restarts).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseEnvFile } from '@live-captions/runtime';
import { parse } from 'yaml';
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

const SERVICES = [
  'calendar',
  'postgres',
  'redis',
  'relay',
  'socket-proxy',
  'speech',
  'traefik',
  'ui',
  'worker',
];
const REQUIRED = ['CAPTURE_HOST', 'RELAY_HOST', 'UI_HOST', 'CERT_EMAIL'] as const;

/** Public routes: service -> [router, host rule, container port]. */
const ROUTES = {
  // /metrics is for Prometheus on the internal networks, never public.
  speech: {
    router: 'speech',
    rule: `Host(\`${HOSTS.CAPTURE_HOST}\`) && !Path(\`/metrics\`) && !PathPrefix(\`/ops\`)`,
    port: '8765',
  },
  relay: {
    router: 'relay',
    rule: `Host(\`${HOSTS.RELAY_HOST}\`) && (Path(\`/\`) || Path(\`/ws\`))`,
    port: '8080',
  },
  ui: { router: 'ui', rule: `Host(\`${HOSTS.UI_HOST}\`) && !Path(\`/metrics\`)`, port: '8081' },
  calendar: {
    router: 'calendar',
    rule: `Host(\`${HOSTS.UI_HOST}\`) && PathPrefix(\`/wp-json\`)`,
    port: '8082',
  },
} as const;

interface TraefikStatic {
  entryPoints: Record<
    string,
    {
      address: string;
      http?: { redirections?: { entryPoint?: { to: string; scheme: string } }; tls?: unknown };
    }
  >;
  certificatesResolvers: Record<
    string,
    { acme: { email: string; storage: string; httpChallenge?: { entryPoint: string } } }
  >;
  providers: {
    docker: { endpoint?: string; exposedByDefault: boolean; network: string };
    file: { directory: string };
  };
  api?: { dashboard?: boolean; insecure?: boolean };
  ping?: unknown;
}

interface TraefikDynamic {
  http: {
    middlewares: Record<
      string,
      {
        headers?: Record<string, unknown>;
        compress?: { encodings?: string[]; minResponseBodyBytes?: number };
      }
    >;
  };
  tls?: { options?: Record<string, { minVersion?: string }> };
}

const traefikStatic = parse(readFileSync(join(repoRoot, 'traefik/traefik.yml'), 'utf8')) as TraefikStatic;
const traefikDynamic = parse(
  readFileSync(join(repoRoot, 'traefik/dynamic/security.yml'), 'utf8'),
) as TraefikDynamic;

/** `name@file` middlewares must exist in traefik/dynamic; `name@docker` on some container's labels. */
function middlewareExists(config: ComposeConfig, reference: string): boolean {
  const [name, provider] = reference.split('@');
  if (provider === 'file') return name! in traefikDynamic.http.middlewares;
  return Object.values(config.services).some((service) =>
    Object.keys(service.labels ?? {}).some((key) => key.startsWith(`traefik.http.middlewares.${name}.`)),
  );
}

function checkRouters(config: ComposeConfig): void {
  for (const [serviceName, expected] of Object.entries(ROUTES)) {
    const service = config.services[serviceName]!;
    expect(service.labels?.['traefik.enable']).toBe('true');
    const router = routersOf(service).get(expected.router);
    expect(router).toBeDefined();
    expect(router!.rule).toBe(expected.rule);
    expect(router!.entrypoints).toBe('websecure');
    expect(router!.tls).toBe('true');
    expect(router!['tls.certresolver']).toBe('letsencrypt');
    expect(traefikStatic.certificatesResolvers).toHaveProperty(router!['tls.certresolver']!);
    const middlewares = (router!.middlewares ?? '').split(',');
    expect(middlewares).toContain('security-headers@file');
    for (const middleware of middlewares) {
      const qualified = middleware.includes('@') ? middleware : `${middleware}@docker`;
      expect([middleware, middlewareExists(config, qualified)]).toEqual([middleware, true]);
    }
    expect(service.labels?.[`traefik.http.services.${expected.router}.loadbalancer.server.port`]).toBe(
      expected.port,
    );
    // The routed port is the one the service listens on.
    const env = environmentOf(service);
    const portVariable = Object.keys(env).find((key) => key.endsWith('_PORT'));
    expect(env[portVariable!]).toBe(expected.port);
    expect(networksOf(service)).toContain('edge');
  }
  // Nothing else is routed.
  for (const name of ['worker', 'redis', 'postgres']) {
    expect([name, config.services[name]!.labels?.['traefik.enable']]).toEqual([name, undefined]);
  }
}

describe('compose.yaml (docker-compose config)', () => {
  let config: ComposeConfig;
  beforeAll(() => {
    config = composeConfig();
  });

  it('has the nine services, each restarted, health-checked and memory-limited', () => {
    expect(Object.keys(config.services).sort()).toEqual(SERVICES);
    for (const [name, service] of Object.entries(config.services)) {
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
      expect([name, healthcheckArgv(service)?.length ?? 0]).not.toEqual([name, 0]);
      expect([name, service.mem_limit]).toEqual([name, expect.stringMatching(/^\d+[mg]$/)]);
    }
    expect(composeConfig({ ...HOSTS, WORKER_MEMORY: '6g' }).services.worker!.mem_limit).toBe('6g');
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

  it('publishes ports only on Traefik: 80 and 443', () => {
    for (const [name, service] of Object.entries(config.services)) {
      const ports = portsOf(service);
      if (name === 'traefik') {
        expect(ports.map((port) => [port.published, port.target]).sort()).toEqual([
          [443, 443],
          [80, 80],
        ]);
      } else {
        expect([name, ports]).toEqual([name, []]);
      }
    }
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
    });
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

describe('compose.gpu.yaml', () => {
  it('builds the CUDA worker and reserves the NVIDIA GPUs, leaving the rest as it was', () => {
    const config = composeConfig(HOSTS, ['gpu']);
    const worker = config.services.worker!;
    expect(worker.build?.dockerfile).toBe('services/worker/Dockerfile.cuda');
    expect(worker.image).toMatch(/worker-cuda:/);
    expect(worker.deploy?.resources?.reservations?.devices).toEqual([
      expect.objectContaining({ driver: 'nvidia', capabilities: ['gpu'] }),
    ]);
    expect(environmentOf(worker).CAPTION_MODEL).toBe('large-v3-turbo');
    expect(healthcheckArgv(worker)).toEqual(['node', '/app/dist/health.js']);
    checkRouters(config);
    expect(portsOf(config.services.worker!)).toEqual([]);
  });

  it('lets .env.production choose the model', () => {
    const config = composeConfig({ ...HOSTS, CAPTION_MODEL: 'small' }, ['gpu']);
    expect(environmentOf(config.services.worker!).CAPTION_MODEL).toBe('small');
  });
});

describe('compose.auth.yaml', () => {
  let config: ComposeConfig;
  beforeAll(() => {
    config = composeConfig(HOSTS, ['auth']);
  });

  it('puts Basic Auth from secrets/traefik.htpasswd in front of the UI', () => {
    const traefik = config.services.traefik!;
    expect(traefik.labels?.['traefik.http.middlewares.basic-auth.basicauth.usersfile']).toBe(
      '/run/secrets/traefik.htpasswd',
    );
    expect(secretsOf(traefik)).toContainEqual({
      source: 'traefik_htpasswd',
      path: '/run/secrets/traefik.htpasswd',
    });
    expect(config.secrets?.traefik_htpasswd?.file).toBe(join(repoRoot, 'secrets/traefik.htpasswd'));
    const ui = routersOf(config.services.ui!).get('ui')!;
    expect(ui.middlewares!.split(',')).toEqual([
      'basic-auth@docker',
      'security-headers@file',
      'compress@file',
    ]);
    checkRouters(config);
  });

  it('exposes the dashboard only through the auth middleware, on the UI host, over HTTPS', () => {
    const dashboard = routersOf(config.services.traefik!).get('dashboard')!;
    expect(dashboard.service).toBe('api@internal');
    expect(dashboard.middlewares!.split(',')).toContain('basic-auth@docker');
    expect(dashboard.rule).toContain(`Host(\`${HOSTS.UI_HOST}\`)`);
    expect(dashboard['tls.certresolver']).toBe('letsencrypt');
    expect(traefikStatic.api?.insecure).not.toBe(true);
  });

  it('exposes the queue view only through the auth middleware, on the UI host, over HTTPS', () => {
    const speech = config.services.speech!;
    const queues = routersOf(speech).get('queues')!;
    expect(queues).toEqual({
      rule: `Host(\`${HOSTS.UI_HOST}\`) && PathPrefix(\`/ops/queues\`)`,
      entrypoints: 'websecure',
      tls: 'true',
      'tls.certresolver': 'letsencrypt',
      service: 'speech',
      middlewares: 'basic-auth@docker,security-headers@file',
    });
    for (const middleware of queues.middlewares!.split(',')) {
      expect([middleware, middlewareExists(config, middleware)]).toEqual([middleware, true]);
    }
    expect(speech.labels?.['traefik.http.services.speech.loadbalancer.server.port']).toBe('8765');
    // Traefik ranks routers by rule length unless told otherwise: the UI host's catch-all router
    // must not win /ops/queues (it would answer the UI's 404, or worse, skip the auth).
    const ui = routersOf(config.services.ui!).get('ui')!;
    expect(ui.priority).toBeUndefined();
    expect(queues.priority).toBeUndefined();
    expect(queues.rule!.length).toBeGreaterThan(ui.rule!.length);
    // The capture host keeps /ops out, with or without this overlay.
    expect(routersOf(speech).get('speech')!.rule).toContain('!PathPrefix(`/ops`)');
  });

  it('leaves the token-protected services without Basic Auth', () => {
    for (const name of ['speech', 'relay', 'calendar']) {
      const router = routersOf(config.services[name]!).get(name)!;
      expect([name, router.middlewares]).not.toEqual([name, expect.stringContaining('basic-auth')]);
    }
    expect(
      portsOf(config.services.traefik!)
        .map((port) => port.published)
        .sort(),
    ).toEqual([443, 80]);
  });
});

describe('compose.local.yaml', () => {
  it('runs without Traefik and publishes on 127.0.0.1 only, with the local addresses', () => {
    const local = parseEnvFile(readFileSync(join(repoRoot, 'compose/local.env'), 'utf8'));
    const config = composeConfig(local, ['local']);
    // A service with a profile only starts when the profile is asked for.
    expect(config.services.traefik!.profiles).toEqual(['proxy']);
    const started = Object.entries(config.services).filter(([, service]) => !service.profiles);
    const published = started.flatMap(([name, service]) =>
      portsOf(service).map((port) => ({ name, ...port })),
    );
    expect(published.map((port) => `${port.name}:${port.published}`).sort()).toEqual([
      'calendar:8082',
      'relay:8080',
      'speech:8765',
      'ui:8081',
    ]);
    for (const port of published) expect(port.hostIp).toBe('127.0.0.1');
    expect(environmentOf(config.services.ui!)).toMatchObject({
      RELAY_URL: 'ws://localhost:8080/ws',
      CAPTURE_URL: 'http://localhost:8765/',
    });
    // The links hub reads /relay-config cross-origin, as in `pnpm start`.
    expect(environmentOf(config.services.speech!).CAPTION_ALLOWED_ORIGINS).toBe(
      'http://localhost:8081,http://127.0.0.1:8081',
    );
    expect(config.services['socket-proxy']!.profiles).toEqual(['proxy']);
    expect(environmentOf(config.services.calendar!).CALENDAR_TRUSTED_PROXIES).toBe('loopback');
  });

  it('shares no secrets, network or subnet with production', () => {
    const local = parseEnvFile(readFileSync(join(repoRoot, 'compose/local.env'), 'utf8'));
    const config = composeConfig(local, ['local']);
    const production = composeConfig();
    for (const [name, secret] of Object.entries(config.secrets ?? {})) {
      expect([name, secret.file]).toEqual([name, join(repoRoot, 'secrets/local', basename(secret.file))]);
      expect(production.secrets?.[name]?.file).toBe(join(repoRoot, 'secrets', basename(secret.file)));
    }
    expect(config.networks?.edge?.name).not.toBe(production.networks?.edge?.name);
    const subnet = (c: ComposeConfig) => JSON.stringify(c.networks?.edge?.ipam);
    expect(subnet(config)).not.toBe(subnet(production));
    expect(subnet(config)).toContain('172.30.241.0/24');
  });
});

describe('traefik/ configuration', () => {
  it('listens on 80 and 443 and sends HTTP to HTTPS', () => {
    expect(traefikStatic.entryPoints.web!.address).toBe(':80');
    expect(traefikStatic.entryPoints.websecure!.address).toBe(':443');
    expect(traefikStatic.entryPoints.web!.http?.redirections?.entryPoint).toMatchObject({
      to: 'websecure',
      scheme: 'https',
    });
  });

  it('gets certificates from Let’s Encrypt with CERT_EMAIL, kept in the ACME volume', () => {
    const acme = traefikStatic.certificatesResolvers.letsencrypt!.acme;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder entrypoint.sh fills in
    expect(acme.email).toBe('${CERT_EMAIL}');
    expect(acme.httpChallenge?.entryPoint).toBe('web');
    expect(acme.storage.startsWith('/acme/')).toBe(true);
  });

  it('routes only labelled containers over the edge network, with file middlewares', () => {
    expect(traefikStatic.providers.docker.exposedByDefault).toBe(false);
    expect(traefikStatic.providers.docker.network).toBe('live-captions-edge');
    expect(traefikStatic.providers.file.directory).toBe('/etc/traefik/dynamic');
    expect(traefikStatic.api).toEqual({ dashboard: true, insecure: false });
    expect(traefikStatic.ping).toBeDefined();
  });

  it('sends the security headers and refuses old TLS', () => {
    expect(traefikDynamic.http.middlewares['security-headers']!.headers).toMatchObject({
      stsSeconds: 31536000,
      contentTypeNosniff: true,
      frameDeny: true,
      referrerPolicy: 'no-referrer',
    });
    expect(traefikDynamic.tls?.options?.default?.minVersion).toBe('VersionTLS12');
  });
});
