import { execFile } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { accountIds, postgresBinDir } from './system.js';

const run = promisify(execFile);
const DIR_PREFIX = 'lc-pg-';
/** The pid of the process that started a cluster: when it is gone, nobody will stop the cluster. */
const OWNER_FILE = 'owner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and removes clusters whose starting process died without tearing them down (a test run
 * killed mid-way): `pg_ctl` servers are detached and would otherwise outlive it.
 */
export async function reapOrphanClusters(): Promise<number> {
  const bin = postgresBinDir();
  if (!bin) return 0;
  let reaped = 0;
  for (const name of readdirSync(tmpdir()).filter((entry) => entry.startsWith(DIR_PREFIX))) {
    const dir = join(tmpdir(), name);
    const ownerFile = join(dir, OWNER_FILE);
    if (!existsSync(ownerFile) || alive(Number(readFileSync(ownerFile, 'utf8')))) continue;
    const ids = process.getuid?.() === 0 ? accountIds('postgres') : {};
    await run(join(bin, 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'immediate', '-w', 'stop'], {
      ...ids,
      cwd: dir,
    }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    reaped += 1;
  }
  return reaped;
}

export interface PostgresCluster {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (trust authentication). */
  url(database?: string): string;
  /** `pg_ctl start`: the same data directory, so committed rows survive a restart. */
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: clients see their connections terminated. */
  stop(): Promise<void>;
  /** `pg_ctl stop -m immediate`: a crash (no checkpoint; recovery at the next start). */
  kill(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/**
 * A private PostgreSQL cluster (`initdb` into a temp dir, `pg_ctl` on a free loopback port) from
 * the system's PostgreSQL binaries. Durability is traded for speed (fsync off): it is test data.
 * PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` account.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found: sudo apt-get install -y postgresql');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, OWNER_FILE), String(process.pid));
  const data = join(dir, 'data');
  const ids = process.getuid?.() === 0 ? accountIds('postgres') : undefined;
  if (ids) chownSync(dir, ids.uid, ids.gid);
  const as = ids ? { uid: ids.uid, gid: ids.gid } : {};
  const env = { ...process.env, LC_ALL: 'C.UTF-8', PGTZ: 'UTC' };

  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync'],
    {
      ...as,
      env,
      cwd: dir,
    },
  );
  const serverOptions = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const pgCtl = (...args: string[]) =>
    run(join(bin, 'pg_ctl'), ['-D', data, ...args], { ...as, env, cwd: dir });

  const cluster: PostgresCluster = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: async () => {
      await pgCtl('-l', join(dir, 'server.log'), '-o', serverOptions, '-w', '-t', '30', 'start');
    },
    stop: async () => {
      await pgCtl('-m', 'fast', '-w', 'stop');
    },
    kill: async () => {
      await pgCtl('-m', 'immediate', '-w', 'stop');
    },
    destroy: async () => {
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
