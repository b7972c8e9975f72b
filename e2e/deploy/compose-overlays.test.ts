/**
 * The production composition's overlays as Docker would run them (`docker-compose config`):
 * GPU, Basic Auth, local ports, and Traefik's own configuration.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseEnvFile } from '@live-captions/runtime';
import {
  type ComposeConfig,
  composeConfig,
  environmentOf,
  HOSTS,
  healthcheckArgv,
  portsOf,
  repoRoot,
  routersOf,
  secretsOf,
} from './helpers/compose.js';

import {
  checkRouters,
  middlewareExists,
  traefikDynamic,
  traefikStatic,
} from './helpers/compose-expectations.js';

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
    for (const name of ['speech', 'relay', 'calendar', 'outputs', 'sources']) {
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
    expect(
      published
        .filter((port) => port.protocol === 'tcp')
        .map((port) => `${port.name}:${port.published}`)
        .sort(),
    ).toEqual([
      'calendar:8082',
      'outputs:8083',
      'relay:8080',
      'sources:1936',
      'sources:8084',
      'speech:8765',
      'ui:8081',
    ]);
    // The SRT push sources' UDP ports, on loopback as well; the push ports are not production's
    // (1935, 9000-9015), so that both stacks run on one host, and the service names them.
    expect(published.filter((port) => port.protocol === 'udp').map((port) => port.published)).toEqual(
      Array.from({ length: 16 }, (_, i) => 9016 + i),
    );
    expect(environmentOf(config.services.sources!)).toMatchObject({
      SOURCES_PUBLIC_HOST: 'localhost',
      SOURCES_RTMP_PORT: '1936',
      SOURCES_SRT_PORTS: '9016-9031',
    });
    for (const port of published) expect(port.hostIp).toBe('127.0.0.1');
    expect(environmentOf(config.services.ui!)).toMatchObject({
      RELAY_URL: 'ws://localhost:8080/ws',
      CAPTURE_URL: 'http://localhost:8765/',
      OUTPUTS_URL: 'http://localhost:8083/',
    });
    // The editor calls the outputs service cross-origin here: no Traefik makes it same-origin.
    expect(environmentOf(config.services.outputs!).OUTPUTS_ALLOWED_ORIGINS).toBe(
      'http://localhost:8081,http://127.0.0.1:8081',
    );
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
