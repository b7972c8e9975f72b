// One download per model file at a time: an exclusive-create lock file next to it, kept fresh by
// a heartbeat, so workers sharing a model volume cooperate and a dead download's lock is taken over.
import { open, readFile, rm, stat, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Lock {
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

/** Exclusive-create lock file with an mtime heartbeat; a lock without heartbeat is taken over. */
export async function acquireLock(
  lockPath: string,
  opts: { staleMs: number; signal: AbortSignal | undefined; onWait: (holder: string) => void },
): Promise<Lock> {
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  let announced = false;
  for (;;) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(JSON.stringify(me));
      await handle.close();
      const heartbeat = setInterval(() => {
        const now = new Date();
        utimes(lockPath, now, now).catch(() => {});
      }, opts.staleMs / 4);
      heartbeat.unref();
      return {
        async release() {
          clearInterval(heartbeat);
          await rm(lockPath, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const seen = await stat(lockPath).catch(() => undefined);
    if (!seen) continue;
    const owner = await readOwner(lockPath);
    const dead =
      Date.now() - seen.mtimeMs > opts.staleMs ||
      (owner !== undefined && owner.host === me.host && owner.pid !== me.pid && !isAlive(owner.pid));
    if (dead) {
      const again = await stat(lockPath).catch(() => undefined);
      if (again && again.mtimeMs === seen.mtimeMs && again.ino === seen.ino)
        await rm(lockPath, { force: true });
      continue;
    }
    if (!announced) {
      announced = true;
      opts.onWait(owner ? `pid ${owner.pid} on ${owner.host} since ${owner.since}` : lockPath);
    }
    await sleep(Math.min(500, opts.staleMs / 4), undefined, opts.signal ? { signal: opts.signal } : {});
  }
}

async function readOwner(lockPath: string): Promise<LockOwner | undefined> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
