import type { ChildProcess } from 'node:child_process';

/** Feeds everything `child` prints to `keep`; resolves when it has exited. */
export function childExit(child: ChildProcess, keep: (text: string) => void): Promise<void> {
  const take = (chunk: Buffer) => keep(chunk.toString());
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return new Promise((resolve) => child.once('exit', () => resolve()));
}
