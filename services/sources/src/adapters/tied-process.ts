/**
 * The service's helper processes (nginx for the push listener, one ffmpeg per source) die with it.
 * Killed without a chance to stop them (SIGKILL, the OOM killer, a crash outside a container),
 * it would leave them running: nginx holding the RTMP port, so that the restarted service could
 * not listen and every encoder stayed with an orphan that answers nobody. util-linux's `setpriv
 * --pdeathsig` asks the kernel to kill the helper when its parent (this process) dies; the
 * programs after it (`nice`, `prlimit`) exec, so the request stays with the helper.
 */
import {
  type ChildProcess,
  type ChildProcessByStdio,
  type SpawnOptions,
  type SpawnOptionsWithStdioTuple,
  type StdioNull,
  type StdioPipe,
  spawn,
} from 'node:child_process';
import type { Readable } from 'node:stream';

/** `spawn(command, args, options)`, the child killed by the kernel when this process dies. */
export function spawnTied(
  command: string,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe>,
): ChildProcessByStdio<null, Readable, Readable>;
export function spawnTied(
  command: string,
  args: readonly string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioNull, StdioPipe>,
): ChildProcessByStdio<null, null, Readable>;
export function spawnTied(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return spawn('setpriv', ['--pdeathsig', 'KILL', '--', command, ...args], options);
}
