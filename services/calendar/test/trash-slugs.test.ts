import { describe, expect, it } from '@jest/globals';
import { trashedSlug, untrashedSlug } from '../src/domain/slug.js';
import { createEvent, day, useTestApi } from './helpers.js';

// WordPress frees a trashed post's slug by suffixing `__trashed`; its post_name is not unique,
// ours is. Trashing a second record whose slug had been freed that way answered 500 (the unique
// index refused a second `x__trashed`): it now gets `x__trashed-2`, and leaves the trash with `x`
// (or the next free one) again.
const api = useTestApi();

describe('slugs through the trash', () => {
  it('trashes two events of the same slug one after the other, and restores them', async () => {
    const when = { start_date: day(3), end_date: day(3, '11:00:00') };
    const first = await createEvent(api, { title: 'Same title', ...when });
    const firstTrashed = await api.by('admin').delete(`events/${first.id}`);
    expect([firstTrashed.status, firstTrashed.body.slug]).toEqual([200, `${first.slug}__trashed`]);
    const second = await createEvent(api, { title: 'Same title', ...when });
    expect(second.slug).toBe(first.slug);
    const trashed = await api.by('admin').delete(`events/${second.id}`);
    expect([trashed.status, trashed.body.slug]).toEqual([200, `${first.slug}__trashed-2`]);

    // Out of the trash: the first takes its slug back, the second the next free one.
    const back = await api.by('admin').post(`events/${first.id}`, { status: 'publish' });
    expect([back.status, back.body.slug]).toEqual([200, first.slug]);
    const again = await api.by('admin').post(`events/${second.id}`, { status: 'publish' });
    expect([again.status, again.body.slug]).toEqual([200, `${first.slug}-2`]);
  });

  it('does the same for venues', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const made = await api.by('admin').post('venues', { venue: 'Annex hall' });
      expect(made.status).toBe(201);
      ids.push(made.body.id);
      const trashed = await api.by('admin').delete(`venues/${made.body.id}`);
      expect([trashed.status, trashed.body.slug]).toEqual([
        200,
        i === 0 ? 'annex-hall__trashed' : 'annex-hall__trashed-2',
      ]);
    }
  });

  it('reads a numbered trashed slug back to its base', () => {
    expect(trashedSlug('talk')).toBe('talk__trashed');
    expect(trashedSlug('talk__trashed-2')).toBe('talk__trashed-2');
    expect(untrashedSlug('talk__trashed')).toBe('talk');
    expect(untrashedSlug('talk__trashed-12')).toBe('talk');
    expect(untrashedSlug('talk-2')).toBe('talk-2');
  });
});
