// File primitives of a download: streamed SHA-1, sizes, writes that report a full disk as such,
// and a directory fsync so that a rename survives a crash.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ModelError } from './catalog.js';

/** SHA-1 (lower-case hex) of a file, streamed. */
export async function sha1File(path: string, { signal }: { signal?: AbortSignal } = {}): Promise<string> {
  const hash = createHash('sha1');
  await hashInto(hash, path, signal);
  return hash.digest('hex');
}

export async function writeAll(file: FileHandle, data: Uint8Array, path: string): Promise<void> {
  try {
    let written = 0;
    while (written < data.byteLength) {
      const { bytesWritten } = await file.write(data, written, data.byteLength - written);
      written += bytesWritten;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') {
      throw new ModelError(
        'MODEL_DISK',
        `No space left on the device for ${path}; free some and run again to resume`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

export async function ensureSpace(partial: string, needed: number | undefined): Promise<void> {
  if (needed === undefined) return;
  const fs = await statfs(dirname(partial)).catch(() => undefined);
  if (!fs) return;
  const free = fs.bavail * fs.bsize;
  if (needed > free) {
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
    throw new ModelError(
      'MODEL_DISK',
      `Not enough disk space in ${dirname(partial)}: the model needs ${mib(needed)} more, ${mib(free)} free`,
    );
  }
}

export async function hashInto(
  hash: Hash,
  path: string,
  signal: AbortSignal | undefined,
  length?: number,
): Promise<void> {
  const range = length === undefined ? {} : { start: 0, end: length - 1 };
  const stream = createReadStream(path, { highWaterMark: 1 << 20, ...range, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) hash.update(chunk as Buffer);
}

export async function sizeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename itself is still atomic
  } finally {
    await handle.close();
  }
}
