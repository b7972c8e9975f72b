/**
 * How the capacity benchmarks choose their concurrency levels: 1, 4, 8 and 16 always (the
 * figures the README compares), then doubling while a series keeps real time, then bisecting
 * between its last pass and its first failure to within an eighth.
 */

export const FIXED_LEVELS = [1, 4, 8, 16] as const;

/**
 * Runs `attempt(level, series)` (true: kept real time) for every series at each level, the series
 * of one level one after the other so that they meet the same machine. Returns per series the
 * most streams that kept real time at every level tried up to it, as the tables print it: with
 * `>=` when no level failed up to `max` (the figure is a floor then).
 */
export async function searchLevels<S extends string>(
  series: readonly S[],
  attempt: (level: number, series: S) => Promise<boolean>,
  max: number,
): Promise<Record<S, string>> {
  const passed = new Map<S, Set<number>>(series.map((s) => [s, new Set()]));
  const failed = new Map<S, Set<number>>(series.map((s) => [s, new Set()]));
  const run = async (level: number, s: S) => {
    ((await attempt(level, s)) ? passed : failed).get(s)!.add(level);
  };
  const firstFailure = (s: S) => Math.min(Number.POSITIVE_INFINITY, ...failed.get(s)!);
  /** The highest level that passed below the first failure (a noisy pass above it counts not). */
  const best = (s: S) => Math.max(0, ...[...passed.get(s)!].filter((level) => level < firstFailure(s)));

  for (const level of FIXED_LEVELS.filter((l) => l <= max)) {
    for (const s of series) await run(level, s);
  }
  for (let level = FIXED_LEVELS.at(-1)! * 2; level <= max; level *= 2) {
    const open = series.filter((s) => failed.get(s)!.size === 0);
    if (open.length === 0) break;
    for (const s of open) await run(level, s);
  }
  for (const s of series) {
    for (;;) {
      const low = best(s);
      const high = firstFailure(s);
      if (!Number.isFinite(high) || high - low <= Math.max(1, low / 8)) break;
      await run(Math.floor((low + high) / 2), s);
    }
  }
  const text = (s: S) => (failed.get(s)!.size === 0 ? `>= ${best(s)}` : String(best(s)));
  return Object.fromEntries(series.map((s) => [s, text(s)])) as Record<S, string>;
}
