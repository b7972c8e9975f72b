/**
 * The compose files as Docker would run them: `docker-compose config` (Compose v1, the Debian
 * package; no engine needed) resolves the overlays, env files and `${VAR}` interpolation, and the
 * result is read back as YAML. Normalisers accept both the short and the long syntax, so the same
 * checks hold for Compose v2 output.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const repoRoot = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
export const composeDir = join(repoRoot, 'compose');

/** The production hosts used by the static checks. */
export const HOSTS = {
  CERT_EMAIL: 'ops@example.org',
  CAPTURE_HOST: 'capture.example.org',
  RELAY_HOST: 'relay.example.org',
  UI_HOST: 'captions.example.org',
} as const;

export type Overlay = 'gpu' | 'auth' | 'local';

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string; target?: string; args?: Record<string, string> };
  environment?: Record<string, string | null>;
  labels?: Record<string, string>;
  ports?: (string | { published?: number | string; target: number; host_ip?: string; protocol?: string })[];
  volumes?: (string | { type: string; source?: string; target: string; read_only?: boolean })[];
  secrets?: (string | { source: string; target?: string; mode?: number })[];
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
  healthcheck?: { test: string[] | string; disable?: boolean; start_period?: string };
  restart?: string;
  user?: string;
  profiles?: string[];
  entrypoint?: string[] | string;
  command?: string[] | string;
  read_only?: boolean;
  cap_drop?: string[];
  mem_limit?: string;
  depends_on?: Record<string, { condition: string }> | string[];
  deploy?: {
    resources?: {
      reservations?: { devices?: { driver?: string; count?: string | number; capabilities: string[] }[] };
    };
  };
}

export interface ComposeConfig {
  services: Record<string, ComposeService>;
  secrets?: Record<string, { file: string }>;
  networks?: Record<string, { internal?: boolean; name?: string; ipam?: unknown } | null>;
  volumes?: Record<string, { name?: string } | null>;
}

export interface ComposeResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `docker-compose` (v1) when installed, else the `docker compose` plugin. */
function composeCommand(): string[] {
  for (const candidate of [['docker-compose'], ['docker', 'compose']]) {
    const probe = spawnSync(candidate[0]!, [...candidate.slice(1), 'version'], { encoding: 'utf8' });
    if (probe.status === 0) return candidate;
  }
  throw new Error('docker-compose is not installed (apt-get install docker-compose)');
}

let command: string[] | undefined;

/** Runs `compose --env-file <env> -f compose.yaml [-f compose.<overlay>.yaml...] <args>`. */
/** An env file as `--env-file` reads it (the operator's `.env.production`). */
export function envFileText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');
}

export function runCompose(
  env: Record<string, string>,
  overlays: Overlay[] = [],
  args: string[] = ['config'],
): ComposeResult {
  command ??= composeCommand();
  const dir = mkdtempSync(join(tmpdir(), 'compose-env-'));
  try {
    const envFile = join(dir, 'env');
    writeFileSync(envFile, envFileText(env));
    const files = ['compose.yaml', ...overlays.map((overlay) => `compose.${overlay}.yaml`)];
    const result = spawnSync(
      command[0]!,
      [
        ...command.slice(1),
        '--project-name',
        'live-captions-test',
        '--env-file',
        envFile,
        ...files.flatMap((file) => ['-f', join(composeDir, file)]),
        ...args,
      ],
      // Only the env file may feed the interpolation: no variables from the test's environment.
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } },
    );
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The resolved configuration; throws with compose's message when it refuses. */
export function composeConfig(env: Record<string, string> = HOSTS, overlays: Overlay[] = []): ComposeConfig {
  const result = runCompose(env, overlays);
  if (result.code !== 0) throw new Error(`compose config failed (${result.code}): ${result.stderr}`);
  return parse(result.stdout) as ComposeConfig;
}

export interface PortBinding {
  hostIp: string;
  published: number | undefined;
  target: number;
  protocol: 'tcp' | 'udp';
}

export function portsOf(service: ComposeService): PortBinding[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object') {
      return {
        hostIp: port.host_ip ?? '',
        published: port.published === undefined ? undefined : Number(port.published),
        target: port.target,
        protocol: port.protocol === 'udp' ? 'udp' : 'tcp',
      };
    }
    // [ip:]published:target[/proto]
    const protocol = port.endsWith('/udp') ? 'udp' : 'tcp';
    const parts = port.replace(/\/(tcp|udp)$/, '').split(':');
    const target = Number(parts.pop());
    const published = parts.length > 0 ? Number(parts.pop()) : undefined;
    return { hostIp: parts.join(':'), published, target, protocol };
  });
}

export interface Mount {
  type: 'bind' | 'volume' | 'tmpfs';
  source: string;
  target: string;
  readOnly: boolean;
}

export function mountsOf(service: ComposeService): Mount[] {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume === 'object') {
      return {
        type: volume.type as Mount['type'],
        source: volume.source ?? '',
        target: volume.target,
        readOnly: volume.read_only === true,
      };
    }
    const [source = '', target = '', mode = 'rw'] = volume.split(':');
    const isPath = source.startsWith('/') || source.startsWith('.');
    return {
      type: isPath ? 'bind' : 'volume',
      source,
      target,
      readOnly: mode.split(',').includes('ro'),
    };
  });
}

export interface SecretMount {
  source: string;
  /** Path inside the container. */
  path: string;
}

export function secretsOf(service: ComposeService): SecretMount[] {
  return (service.secrets ?? []).map((secret) => {
    const source = typeof secret === 'string' ? secret : secret.source;
    const target = (typeof secret === 'string' ? undefined : secret.target) ?? source;
    return { source, path: target.startsWith('/') ? target : `/run/secrets/${target}` };
  });
}

export function networksOf(service: ComposeService): string[] {
  const networks = service.networks ?? [];
  return Array.isArray(networks) ? networks : Object.keys(networks);
}

export function environmentOf(service: ComposeService): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.environment ?? {})) out[key] = value ?? '';
  return out;
}

/** `traefik.http.routers.<name>.<rest>` labels grouped by router. */
export function routersOf(service: ComposeService): Map<string, Record<string, string>> {
  const routers = new Map<string, Record<string, string>>();
  for (const [key, value] of Object.entries(service.labels ?? {})) {
    const match = /^traefik\.http\.routers\.([^.]+)\.(.+)$/.exec(key);
    if (!match) continue;
    const router = routers.get(match[1]!) ?? {};
    router[match[2]!] = value;
    routers.set(match[1]!, router);
  }
  return routers;
}

/** The healthcheck test as one argv (CMD) or shell string (CMD-SHELL). */
export function healthcheckArgv(service: ComposeService): string[] | undefined {
  const test = service.healthcheck?.test;
  if (!test || service.healthcheck?.disable) return undefined;
  if (typeof test === 'string') return ['/bin/sh', '-c', test];
  if (test[0] === 'CMD') return test.slice(1);
  if (test[0] === 'CMD-SHELL') return ['/bin/sh', '-c', test.slice(1).join(' ')];
  return undefined;
}
