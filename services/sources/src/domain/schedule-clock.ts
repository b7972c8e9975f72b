/**
 * The scheduler's clock (pure). Normally the wall clock; for a rehearsal of the day (and the tests)
 * `SOURCES_SCHEDULE_CLOCK` names a moment of the schedule, the real moment it corresponds to, and
 * a rate: `2026-12-08T09:00:00Z@2026-12-07T14:00:00Zx60` reads 09:00 on the 8th at 14:00 on the
 * 7th and runs sixty times faster, so a day of talks minutes apart plays in a few seconds each.
 * Every replica given the same value reads the same time.
 */
export type Clock = () => number;

const SPEC = /^(\S+Z)@(\S+Z)x(\d+(?:\.\d+)?)$/;

/** The clock a `SOURCES_SCHEDULE_CLOCK` value describes; throws with what is wrong. */
export function parseScheduleClock(spec: string, realNow: Clock = Date.now): Clock {
  const match = SPEC.exec(spec.trim());
  const scheduled = Date.parse(match?.[1] ?? '');
  const real = Date.parse(match?.[2] ?? '');
  const rate = Number(match?.[3]);
  if (!match || Number.isNaN(scheduled) || Number.isNaN(real))
    throw new Error(
      'must be SCHEDULE@REALx<rate>, two UTC ISO times, e.g. 2026-12-08T09:00:00Z@2026-12-07T14:00:00Zx60',
    );
  if (!(rate > 0 && rate <= 3600)) throw new Error('the rate must be more than 0 and at most 3600');
  return () => scheduled + (realNow() - real) * rate;
}
