/**
 * CPU seconds and resident memory of a service process with everything it started (the sources
 * service's ffmpeg decoders, PostgreSQL's backends, APy's pipelines), read from /proc: what one
 * service costs on the machine, not only its main process.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS = 100;

interface Stat {
  ppid: number;
  /** utime + stime + cutime + cstime, in ticks: its own time and that of children it reaped. */
  ticks: number;
}

function stats(): Map<number, Stat> {
  const all = new Map<number, Stat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command name (which may hold spaces): state is field 3, ppid field 4.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    all.set(Number(entry), {
      ppid: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]),
    });
  }
  return all;
}

/** `pid` and its live descendants. */
function tree(pid: number, all: Map<number, Stat>): number[] {
  const children = new Map<number, number[]>();
  for (const [child, stat] of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), child]);
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (!all.has(next)) continue;
    out.push(next);
    stack.push(...(children.get(next) ?? []));
  }
  return out;
}

/** CPU seconds of `pid`'s tree so far (a child that exited and was reaped stays counted). */
export function treeCpuSeconds(pid: number): number {
  const all = stats();
  return tree(pid, all).reduce((sum, p) => sum + all.get(p)!.ticks, 0) / TICKS;
}

/**
 * Memory of `pid`'s tree, MiB: the proportional set size (PSS: each shared page split among the
 * processes that map it), so that the sources' many ffmpeg processes are not charged the same
 * libraries once each; VmRSS where smaps_rollup cannot be read.
 */
export function treeMemoryMiB(pid: number): number {
  let kib = 0;
  for (const p of tree(pid, stats())) {
    try {
      kib += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      try {
        kib += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        // gone meanwhile
      }
    }
  }
  return kib / 1024;
}

/**
 * The first process (lowest pid) whose command line holds `args` in a row, and whose program
 * matches `program` when given: the postmaster (`-p <port>`), APy (`-p <port>`).
 */
export function commandPid(args: string[], program?: RegExp): number | undefined {
  const pids = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (program && !program.test(line[0] ?? '')) continue;
      if (line.some((_, i) => args.every((arg, k) => line[i + k] === arg))) return pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
