import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { APERTIUM_MODES } from '@live-captions/apertium';

/** A system program the tests run, and the Debian package that provides it. */
export interface SystemProgram {
  name: string;
  package: string;
  /** Where to look besides PATH (PostgreSQL's server binaries are not on PATH on Debian). */
  find?: () => string | undefined;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The newest installed PostgreSQL's server binaries (`/usr/lib/postgresql/<major>/bin`), or PATH's. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const majors = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], 'bin');
  }
  const initdb = onPath('initdb');
  return initdb ? join(initdb, '..') : undefined;
}

/** Where Debian's Apertium pair packages put their modes (written once, with how APy starts). */
export { APERTIUM_MODES };

export const PROGRAMS = {
  redis: { name: 'redis-server', package: 'redis-server' },
  postgres: { name: 'initdb', package: 'postgresql', find: () => postgresBinDir() },
  chromium: { name: 'chromium', package: 'chromium' },
  dockerCompose: { name: 'docker-compose', package: 'docker-compose' },
  docker: { name: 'docker', package: 'docker.io' },
  // The real OBS Studio test (e2e/obs): OBS under Xvfb streaming to a private nginx-rtmp, read by ffmpeg.
  obs: { name: 'obs', package: 'obs-studio' },
  xvfb: { name: 'Xvfb', package: 'xvfb' },
  nginx: {
    name: 'nginx',
    package: 'nginx-light',
    find: () => ['/usr/sbin/nginx'].find(existsSync) ?? onPath('nginx'),
  },
  nginxRtmp: {
    name: 'ngx_rtmp_module.so',
    package: 'libnginx-mod-rtmp',
    find: () => ['/usr/lib/nginx/modules/ngx_rtmp_module.so'].find(existsSync),
  },
  ffmpeg: { name: 'ffmpeg', package: 'ffmpeg' },
  // Live translation: a real Apertium APy with the two English pairs the tests translate into.
  apertium: { name: 'apertium-apy', package: 'apertium-apy' },
  apertiumEngSpa: {
    name: 'eng-spa.mode',
    package: 'apertium-eng-spa',
    find: () => [`${APERTIUM_MODES}/eng-spa.mode`].find(existsSync),
  },
  apertiumEngCat: {
    name: 'eng-cat.mode',
    package: 'apertium-eng-cat',
    find: () => [`${APERTIUM_MODES}/eng-cat.mode`].find(existsSync),
  },
} satisfies Record<string, SystemProgram>;

/**
 * Throws one error naming every missing program and the one `apt-get install` line that brings
 * them all, so a new machine is set up in one step instead of one failure at a time.
 */
export function requirePrograms(programs: SystemProgram[]): void {
  const missing = programs.filter((program) => !(program.find?.() ?? onPath(program.name)));
  if (missing.length === 0) return;
  const names = missing.map((program) => program.name).join(', ');
  const packages = [...new Set(missing.map((program) => program.package))].join(' ');
  throw new Error(
    `The tests need ${names}, which this machine lacks. Install with:\n\n  sudo apt-get install -y ${packages}\n`,
  );
}

/** uid/gid of a system account, for servers that refuse to run as root (PostgreSQL). */
export function accountIds(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}
