import { describe, expect, it } from '@jest/globals';
import { createEvent, ROOT, useTestApi } from './helpers.js';

// Issue 17, "Keep ours": where The Events Calendar is plainly buggy, our behaviour, pinned.
const now = new Date('2030-06-15T12:00:00Z');
const api = useTestApi({ now: () => now });
const base = { start_date: '2030-07-10 18:00', end_date: '2030-07-10 20:00' };
type Who = 'admin' | 'author' | 'author2' | 'contributor';

const create = (body: Record<string, unknown>, who: Who = 'admin') => createEvent(api, body, who, base);
const titles = (res: { body: { events: { title: string }[] } }) => res.body.events.map((e) => e.title).sort();

describe('our behaviour where The Events Calendar is buggy', () => {
  it('updates partially: cost, website, flags and organizers survive an update of the title', async () => {
    // Sent on create, expected back unchanged after the update.
    const kept = {
      website: 'https://keep.example.org/',
      featured: true,
      sticky: true,
      all_day: true,
      show_map: true,
      show_map_link: true,
    };
    const event = await create({
      title: 'Keeps all',
      cost: '15',
      ...kept,
      organizer: [{ organizer: 'Keeper' }],
    });
    const res = await api.by('admin').post(`events/${event.id}`, { title: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ title: 'Renamed', cost: '$15', ...kept });
    expect(res.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Keeper']);
    // Issue 36: a PATCH (and a PUT) is as partial.
    for (const method of ['patch', 'put'] as const) {
      const again = await api.by('admin')[method](`events/${event.id}`, { title: `Renamed by ${method}` });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ title: `Renamed by ${method}`, cost: '$15', ...kept });
      expect(again.body.organizer.map((o: { organizer: string }) => o.organizer)).toEqual(['Keeper']);
    }
  });

  // Issue 36: TEC swaps `UTC+2` for a named zone guessed from the offset, whose summer time
  // moves the instant; an offset is an offset here, summer and winter alike.
  it('reads UTC+2 10:00 as 08:00 UTC in July and in January', async () => {
    for (const date of ['2030-07-10', '2031-01-10']) {
      const event = await create({
        title: `Offset ${date}`,
        timezone: 'UTC+2',
        start_date: `${date} 10:00`,
        end_date: `${date} 11:00`,
      });
      expect(event).toMatchObject({
        timezone: 'UTC+2',
        start_date: `${date} 10:00:00`,
        utc_start_date: `${date} 08:00:00`,
        utc_end_date: `${date} 09:00:00`,
      });
    }
  });

  it('lists to authors and contributors only what they may read', async () => {
    await create({ title: 'Mine draft', status: 'draft' }, 'author');
    await create({ title: 'Other draft', status: 'draft' }, 'author2');
    await create({ title: 'Other private', status: 'private' }, 'admin');
    await create({ title: 'Public one' }, 'admin');
    const author = await api.by('author').get('events');
    expect(titles(author)).toEqual(expect.arrayContaining(['Mine draft', 'Public one']));
    expect(titles(author)).not.toEqual(expect.arrayContaining(['Other draft']));
    expect(titles(author)).not.toContain('Other private');
    const contributor = await api.by('contributor').get('events?status=draft');
    expect(contributor.body.events).toEqual([]);
    const editor = await api.by('admin').get('events?status=draft,private');
    expect(titles(editor)).toEqual(expect.arrayContaining(['Mine draft', 'Other draft', 'Other private']));
  });

  it('gives a contributor asking for private a pending event', async () => {
    const event = await create({ title: 'Wants private', status: 'private' }, 'contributor');
    expect(event.status).toBe('pending');
  });

  it('keeps include independent of the date window', async () => {
    const old = await create({
      title: 'Long ago',
      start_date: '2020-01-01 10:00',
      end_date: '2020-01-01 11:00',
    });
    const res = await api.request.get(`${ROOT}/events?include=${old.id}`);
    expect(titles(res)).toEqual(['Long ago']);
  });

  it('checks every upcoming event for only_with_upcoming, not only the next 10', async () => {
    for (let i = 0; i < 12; i++) {
      await create({
        title: `Filler ${i}`,
        start_date: `2030-08-${String(i + 1).padStart(2, '0')} 10:00`,
        end_date: `2030-08-${String(i + 1).padStart(2, '0')} 11:00`,
        venue: { venue: 'Busy Hall' },
      });
    }
    await create({
      title: 'Twelve later',
      start_date: '2030-09-20 10:00',
      end_date: '2030-09-20 11:00',
      venue: { venue: 'Late Hall' },
    });
    const res = await api.request.get(`${ROOT}/venues?only_with_upcoming=true&search=Hall`);
    expect(res.body.venues.map((v: { venue: string }) => v.venue).sort()).toEqual(['Busy Hall', 'Late Hall']);
  });

  it('links an existing tag named in a write instead of creating one named after it', async () => {
    const first = await create({ title: 'Tagged once', tags: ['Vinyl'] });
    const second = await create({ title: 'Tagged twice', tags: ['vinyl', first.tags[0].id] });
    expect(second.tags.map((t: { id: number }) => t.id)).toEqual([first.tags[0].id]);
    const tags = await api.request.get(`${ROOT}/tags?search=vinyl`);
    expect(tags.body.total).toBe(1);
  });

  it('gives drafts real slugs and dates', async () => {
    const draft = await create({ title: 'Draft Slugged', status: 'draft' }, 'author');
    expect(draft.slug).toBe('draft-slugged');
    expect(draft.date).toBe('2030-06-15 12:00:00');
    expect(draft.date_utc).toBe('2030-06-15 12:00:00');
  });
});
