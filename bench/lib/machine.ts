/**
 * The machine a benchmark ran on, named from /proc/cpuinfo, and its load: capacity figures mean
 * nothing without both (the development VM is shared, and its load moves the figures).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

interface Cpu {
  model: string;
  /** Logical processors listed in /proc/cpuinfo (what the kernel schedules on). */
  cores: number;
  /** Vector extensions whisper.cpp's CPU backend picks its kernels by. */
  vector: string[];
}

function cpuInfo(): Cpu {
  try {
    const text = readFileSync('/proc/cpuinfo', 'utf8');
    const field = (name: string) =>
      text
        .split('\n')
        .find((line) => line.startsWith(name))
        ?.split(':')[1]
        ?.trim();
    const flags = new Set((field('flags') ?? '').split(/\s+/));
    return {
      model: field('model name') ?? '?',
      cores: text.split('\n').filter((line) => /^processor\s*:/.test(line)).length,
      vector: ['avx2', 'fma', 'f16c', 'avx512f'].filter((flag) => flags.has(flag)),
    };
  } catch {
    // Not Linux: what Node reports.
    return { model: cpus()[0]?.model ?? '?', cores: availableParallelism(), vector: [] };
  }
}

/** The 1-minute load average, one decimal. */
export const load1 = (): string => loadavg()[0]!.toFixed(1);

/** One line naming the machine and its load (1, 5, 15 minutes) now. */
export function machineLine(): string {
  const cpu = cpuInfo();
  const gib = (totalmem() / 2 ** 30).toFixed(0);
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
  const vector = cpu.vector.length ? ` (${cpu.vector.join(', ')})` : '';
  return `machine: ${cpu.model}${vector}, ${cpu.cores} cores, ${gib} GiB; load average ${load} (1/5/15 min)`;
}
