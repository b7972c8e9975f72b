/**
 * How long a decode thread busy-waits for its partners before it sleeps. whisper.cpp's CPU
 * backend runs each graph on an OpenMP team (libgomp) with a barrier after every node: hundreds
 * per decode. A thread that reaches a barrier first spins, then sleeps on a futex. libgomp spins
 * 300,000 times by default (about 8.5 ms on the 2-core EPYC VM, 28 ns a spin). On a quiet machine
 * the partner arrives within microseconds and the spin only saves a wake-up; when other processes
 * want the cores, the partner is often not running at all, and the waiting thread burns its whole
 * time slice spinning: on the 2-core VM under load, 61 % of the decode's CPU time was libgomp's
 * spin loop (`perf record`), and a 65 ms decode took seconds. A short spin keeps the quiet case and
 * gives the cores back under load. libgomp reads its settings once, when it loads with the addon,
 * so this is a per-process setting, applied before the addon's first load.
 */

/** Our default: about 85 µs of spinning on the EPYC VM, then sleep (see README, `pnpm bench engine`). */
export const DEFAULT_SPIN_COUNT = 3000;
/** libgomp's own default, what whisper-cli and any other OpenMP program runs with. */
export const LIBGOMP_SPIN_COUNT = 300_000;
/** libgomp accepts far more; past this it is spinning for minutes. */
export const MAX_SPIN_COUNT = 30_000_000_000;

/** libgomp's own variables, when the operator set them: they win over ours. */
export interface OperatorOpenMp {
  GOMP_SPINCOUNT?: string | undefined;
  OMP_WAIT_POLICY?: string | undefined;
}

/** The spin count a process runs its decodes with, and who chose it. */
export interface SpinSetting {
  /** Spins before a waiting thread sleeps; null: the operator's OMP_WAIT_POLICY decides. */
  spinCount: number | null;
  from: 'default' | 'configured' | 'GOMP_SPINCOUNT' | 'OMP_WAIT_POLICY';
}

/** A whole number of spins from 0 to MAX_SPIN_COUNT, or throws RangeError. */
export function checkSpinCount(spinCount: number): number {
  if (!Number.isInteger(spinCount) || spinCount < 0 || spinCount > MAX_SPIN_COUNT) {
    throw new RangeError(`spin count must be a whole number from 0 to ${MAX_SPIN_COUNT}, not ${spinCount}`);
  }
  return spinCount;
}

/**
 * What to put in the environment while libgomp loads, and the setting that results: the
 * operator's GOMP_SPINCOUNT or OMP_WAIT_POLICY left alone when set (nothing to add), else
 * GOMP_SPINCOUNT = `spinCount`.
 */
export function libgompEnvironment(
  spinCount: number,
  configured: boolean,
  operator: OperatorOpenMp,
): { variables: Record<string, string>; setting: SpinSetting } {
  if (operator.GOMP_SPINCOUNT) {
    const given = Number(operator.GOMP_SPINCOUNT);
    return {
      variables: {},
      setting: { spinCount: Number.isFinite(given) ? given : null, from: 'GOMP_SPINCOUNT' },
    };
  }
  if (operator.OMP_WAIT_POLICY)
    return { variables: {}, setting: { spinCount: null, from: 'OMP_WAIT_POLICY' } };
  return {
    variables: { GOMP_SPINCOUNT: String(checkSpinCount(spinCount)) },
    setting: { spinCount, from: configured ? 'configured' : 'default' },
  };
}
