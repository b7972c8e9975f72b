import { describe, expect, it } from '@jest/globals';
import { createEvent, day, ROOT, type Role, useTestApi } from './helpers.js';

// Issue 44 point 5: the wording of TEC 6.17.2's Tribe__Events__REST__V1__Messages (Single_Event::
// validate_event_exists sprintf's the id into rest-event-not-found), a trashed record's plain
// permalink, and the index's `up` link as WordPress writes it (rest_url(), with its slash).
const api = useTestApi();

const event = (who: Role, body: Record<string, unknown> = {}) =>
  createEvent(api, body, who, { title: 'Worded', start_date: day(2), end_date: day(2, '11:00:00') });
const refusal = (res: { status: number; body: { code: string; message: string } }) => [
  res.status,
  res.body.code,
  res.body.message,
];

describe('TEC messages', () => {
  it('names the missing event id', async () => {
    expect(refusal(await api.request.get(`${ROOT}/events/999999`))).toEqual([
      404,
      'rest-event-not-found',
      'Event with ID 999999 does not exist.',
    ]);
    expect(refusal(await api.by('admin').delete('events/0'))).toEqual([
      404,
      'rest-event-not-found',
      'Event with ID 0 does not exist.',
    ]);
    const venue = await api.request.get(`${ROOT}/venues/999999`);
    expect(refusal(venue)).toEqual([404, 'rest-venue-not-found', 'Venue with ID 999999 does not exist.']);
  });

  it('words the refusals of one event as TEC', async () => {
    const draft = await event('author', { status: 'draft' });
    expect(refusal(await api.request.get(`${ROOT}/events/${draft.id}`))).toEqual([
      403,
      'event-not-accessible',
      'The requested event is not accessible',
    ]);
    const locked = await event('admin', { password: 'sesame' });
    expect(refusal(await api.request.get(`${ROOT}/events/${locked.id}`))).toEqual([
      403,
      'event-password-protected',
      'The requested event is not accessible without a password',
    ]);
    await api.by('admin').delete(`events/${locked.id}`).expect(200);
    expect(refusal(await api.request.get(`${ROOT}/events/${locked.id}`))).toEqual([
      403,
      'event-no-longer-available',
      'This event is no longer available',
    ]);
    expect(refusal(await api.by('admin').delete(`events/${locked.id}`))).toEqual([
      410,
      'event-is-in-trash',
      'The event is already trashed',
    ]);
  });

  it('words a page past the end of a list as TEC', async () => {
    for (const kind of ['event', 'venue', 'organizer']) {
      expect(refusal(await api.request.get(`${ROOT}/${kind}s?page=99`))).toEqual([
        404,
        `${kind}-archive-page-not-found`,
        `The requested ${kind} archive page does not exist`,
      ]);
    }
  });
});

describe('links', () => {
  it("answers a trashed record's url as WordPress's plain permalink", async () => {
    const created = await event('admin', {
      title: 'Trashed links',
      venue: { venue: 'Trashed Hall' },
      organizer: [{ organizer: 'Gone Org' }],
    });
    const origin = new URL(created.url).origin;
    for (const [path, id, type] of [
      ['venues', created.venue.id, 'tribe_venue'],
      ['organizers', created.organizer[0].id, 'tribe_organizer'],
      ['events', created.id, 'tribe_events'],
    ] as const) {
      const trashed = await api.by('admin').delete(`${path}/${id}`);
      expect([trashed.status, trashed.body.url]).toEqual([200, `${origin}/?p=${id}&post_type=${type}`]);
    }
  });

  it("ends the index's `up` link with a slash", async () => {
    const index = await api.request.get(ROOT);
    expect(index.body._links.up).toEqual([
      { href: `${new URL(index.body._links.up[0].href).origin}/wp-json/` },
    ]);
  });
});
