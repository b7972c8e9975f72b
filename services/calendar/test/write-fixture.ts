import { type Role, useTestApi } from './helpers.js';

/**
 * The app of the event-write tests: a fixed clock, Paris time, and the GET cache on, so that
 * every read-after-write also checks that writes invalidate it; `post` creates an event.
 */
export function useWriteFixture() {
  const now = new Date('2030-06-15T12:00:00Z');
  const api = useTestApi({ now: () => now, timezone: 'Europe/Paris', cacheTtlMs: 60_000 });
  const base = { title: 'Board Games', start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };
  const post = (body: Record<string, unknown>, who: Role = 'admin') => api.by(who).post('events', body);
  return { now, api, base, post };
}
