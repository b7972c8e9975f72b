/**
 * What the production composition promises, written once for the compose tests: the services,
 * the required settings, each routed service's router, and Traefik's own configuration.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { parse } from 'yaml';
import { type ComposeConfig, environmentOf, HOSTS, networksOf, repoRoot, routersOf } from './compose.js';

export const SERVICES = [
  'apertium',
  'calendar',
  'outputs',
  'postgres',
  'redis',
  'relay',
  'socket-proxy',
  'sources',
  'speech',
  'traefik',
  'ui',
  'worker',
];
export const REQUIRED = ['CAPTURE_HOST', 'RELAY_HOST', 'UI_HOST', 'CERT_EMAIL'] as const;

/** Public routes: service -> [router, host rule, container port]. */
export const ROUTES = {
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
  // The editor's destinations API, same-origin on the UI host; its /metrics stays internal.
  outputs: {
    router: 'outputs',
    rule: `Host(\`${HOSTS.UI_HOST}\`) && PathPrefix(\`/outputs/\`) && !Path(\`/outputs/metrics\`)`,
    port: '8083',
  },
  // The stream sources API, on the UI host as well; its /metrics stays internal.
  sources: {
    router: 'sources',
    rule: `Host(\`${HOSTS.UI_HOST}\`) && PathPrefix(\`/sources/\`) && !Path(\`/sources/metrics\`)`,
    port: '8084',
  },
} as const;

export interface TraefikStatic {
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

export interface TraefikDynamic {
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

export const traefikStatic = parse(
  readFileSync(join(repoRoot, 'traefik/traefik.yml'), 'utf8'),
) as TraefikStatic;
export const traefikDynamic = parse(
  readFileSync(join(repoRoot, 'traefik/dynamic/security.yml'), 'utf8'),
) as TraefikDynamic;

/** `name@file` middlewares must exist in traefik/dynamic; `name@docker` on some container's labels. */
export function middlewareExists(config: ComposeConfig, reference: string): boolean {
  const [name, provider] = reference.split('@');
  if (provider === 'file') return name! in traefikDynamic.http.middlewares;
  return Object.values(config.services).some((service) =>
    Object.keys(service.labels ?? {}).some((key) => key.startsWith(`traefik.http.middlewares.${name}.`)),
  );
}

export function checkRouters(config: ComposeConfig): void {
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
  for (const name of ['worker', 'redis', 'postgres', 'apertium']) {
    expect([name, config.services[name]!.labels?.['traefik.enable']]).toEqual([name, undefined]);
  }
}
