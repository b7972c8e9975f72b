/** Level meter scale: RMS to 0..1 over the last 60 dB (pure). */
export const METER_FLOOR_DB = -60;

export function levelFromRms(value: number): number {
  if (!(value > 0)) return 0;
  const db = 20 * Math.log10(value);
  return Math.min(1, Math.max(0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB));
}

/** Keeps the meter readable: fast attack, slow release. */
export function smoothLevel(previous: number, next: number, release = 0.15): number {
  return next >= previous ? next : previous + (next - previous) * release;
}
