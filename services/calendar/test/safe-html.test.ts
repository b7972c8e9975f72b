import { describe, expect, it } from '@jest/globals';
import { useTestApi } from './helpers.js';

// Issue 28: roles without unfiltered_html (author, contributor) store HTML filtered as WordPress's
// kses filters it; editors and administrators keep what they send; URL fields refuse dangerous
// schemes for every role.
const api = useTestApi({ now: () => new Date('2030-06-15T12:00:00Z') });
const dates = { start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };

const attack =
  '<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)" onclick="x()">j</a>' +
  '<a href="data:text/html,<b>">d</a><a href="vbscript:msgbox">v</a><svg onload=alert(4)></svg>';
/** What must be gone from a filtered field, whatever the context. */
const dangerous = /<script|onerror|onclick|onload|javascript:|data:|vbscript:|<svg/i;
const richText =
  '<p><strong>Bold</strong> <em>it</em> <a href="https://example.org/x" title="t">link</a></p>' +
  '<ul><li>one</li><li>two</li></ul><ol><li>first</li></ol>' +
  '<img src="https://img.example.org/a.png" alt="A" width="10" />';
const titleText = '<strong>Big</strong> <em>night</em> <a href="https://example.org/">here</a>';

type Role = 'author' | 'contributor' | 'editor' | 'admin';
const filteredRoles: Role[] = ['author', 'contributor'];
const trustedRoles: Role[] = ['editor', 'admin'];

/** The stored columns of a record, straight from PostgreSQL. */
const stored = (table: string, id: number) => api.knex(table).where('id', id).first();

const recordKinds = [
  {
    kind: 'event',
    path: 'events',
    table: 'cal_events',
    name: 'title',
    title: ['title', 'cost'],
    post: ['description', 'excerpt'],
  },
  {
    kind: 'venue',
    path: 'venues',
    table: 'cal_venues',
    name: 'venue',
    title: ['venue', 'address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince'],
    post: ['description', 'excerpt'],
  },
  {
    kind: 'organizer',
    path: 'organizers',
    table: 'cal_organizers',
    name: 'organizer',
    title: ['organizer', 'phone'],
    post: ['description', 'excerpt'],
  },
] as const;
const columnOf = (name: string) => (name === 'venue' || name === 'organizer' ? 'title' : name);

let n = 0;
const unique = () => ` ${++n}`;

describe.each(recordKinds)('$kind fields', ({ path, table, name, title, post }) => {
  const send = async (who: Role, field: string, value: string) => {
    const body: Record<string, unknown> = {
      [name]: `Record${unique()}`,
      ...(path === 'events' ? dates : {}),
      [field]: field === name ? `${value}${unique()}` : value,
    };
    const res = await api.by(who).post(path, body);
    expect(res.status).toBe(201);
    return (await stored(table, res.body.id))[columnOf(field)] as string;
  };

  it.each(filteredRoles.flatMap((who) => [...title, ...post].map((field) => [who, field])))(
    'filters %s markup that runs out of %s',
    async (who, field) => {
      const value = await send(who as Role, field, `Safe ${attack} text`);
      expect(value).not.toMatch(dangerous);
      expect(value).toContain('Safe');
      expect(value).toContain('text');
    },
  );

  it.each(filteredRoles.flatMap((who) => post.map((field) => [who, field])))(
    'keeps what WordPress allows in a post: %s, %s',
    async (who, field) => {
      expect(await send(who as Role, field, richText)).toBe(richText);
    },
  );

  it.each(filteredRoles.flatMap((who) => title.map((field) => [who, field])))(
    "keeps WordPress's title markup for %s in %s and drops blocks and images",
    async (who, field) => {
      const value = await send(
        who as Role,
        field,
        `${titleText}<ul><li>x</li></ul><img src="https://a/b.png">`,
      );
      expect(value.startsWith(titleText)).toBe(true);
      expect(value).not.toMatch(/<ul|<li|<img/);
    },
  );

  it.each(trustedRoles.flatMap((who) => [...title, ...post].map((field) => [who, field])))(
    'keeps what %s sends in %s (unfiltered_html)',
    async (who, field) => {
      const value = `<iframe src="https://video.example/"></iframe>${attack}`;
      const got = await send(who as Role, field, value);
      expect(got.startsWith(value)).toBe(true);
    },
  );

  it('filters on update too', async () => {
    const body = { [name]: `Updated${unique()}`, ...(path === 'events' ? dates : {}) };
    const created = await api.by('author').post(path, body);
    const res = await api.by('author').post(`${path}/${created.body.id}`, {
      description: attack,
      [name]: `<b>x</b><script>y()</script>${unique()}`,
    });
    expect(res.status).toBe(200);
    const row = await stored(table, created.body.id);
    expect(row.description).not.toMatch(dangerous);
    expect(row.title).toMatch(/^<b>x<\/b> \d+$/);
  });
});

describe('inline records and terms', () => {
  it('filters venues, organizers and term names created inside an event write', async () => {
    const res = await api.by('author').post('events', {
      title: 'Inline',
      ...dates,
      venue: { venue: 'Hall<script>x()</script>', city: '<img src=x onerror=alert(1)>Lyon' },
      organizer: [{ organizer: '<a href="javascript:alert(1)">Org</a>' }],
      categories: ['Cat<script>x()</script>'],
      tags: ['<b onclick="x()">tagged</b>'],
    });
    expect(res.status).toBe(201);
    expect(res.body.venue).toMatchObject({ venue: 'Hall', city: 'Lyon' });
    expect(res.body.organizer[0].organizer).toBe('<a>Org</a>');
    expect(res.body.categories[0].name).toBe('Cat');
    expect(res.body.tags[0].name).toBe('<b>tagged</b>');
  });

  it('filters category names and descriptions an author writes; editors keep theirs', async () => {
    const byAuthor = await api.by('author').post('categories', {
      name: 'Kids<script>x()</script>',
      description: '<a href="https://x.org" rel="nofollow" onclick="y()">x</a>',
    });
    expect(byAuthor.status).toBe(201);
    expect(byAuthor.body).toMatchObject({
      name: 'Kids',
      description: '<a href="https://x.org" rel="nofollow">x</a>',
    });
    const empty = await api.by('author').post('categories', { name: '<script>x</script>' });
    expect(empty.status).toBe(400);
    expect(empty.body.data.params.name).toBe('name must not be empty.');
    const byEditor = await api
      .by('editor')
      .post('categories', { name: 'Raw<i>x</i>', description: '<iframe src="https://v.example"></iframe>' });
    expect(byEditor.body).toMatchObject({ description: '<iframe src="https://v.example"></iframe>' });
  });
});

describe('URL fields', () => {
  const bad = [
    'javascript:alert(1)',
    'JavaScript://%0aalert(1)',
    'data:text/html,<script>x</script>',
    'vbscript:msgbox',
    'not a url',
  ];
  const targets = [
    { path: 'events', body: { title: 'U', ...dates }, fields: ['website', 'image'] },
    { path: 'venues', body: { venue: 'U' }, fields: ['website', 'image'] },
    { path: 'organizers', body: { organizer: 'U' }, fields: ['website', 'image'] },
  ];
  it.each(
    targets.flatMap((t) =>
      t.fields.flatMap((field) => bad.map((url) => [t.path, field, url, t.body] as const)),
    ),
  )('%s refuses %s %j for every role (400)', async (path, field, url, body) => {
    for (const who of ['admin', 'author'] as const) {
      const res = await api.by(who).post(path, { ...body, [field]: url });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('rest_invalid_param');
      expect(Object.keys(res.body.data.params)).toEqual([field]);
    }
  });

  it('accepts http(s) websites, image URLs and ids, and mailto/tel links', async () => {
    const venue = await api.by('author').post('venues', {
      venue: `Good URL${unique()}`,
      website: 'https://venue.example.org/',
      image: 'https://img.example.org/v.png',
    });
    expect(venue.status).toBe(201);
    expect(venue.body.website).toBe('https://venue.example.org/');
    const organizer = await api
      .by('contributor')
      .post('organizers', { organizer: `Mailto${unique()}`, website: 'mailto:org@example.org', image: 42 });
    expect(organizer.status).toBe(201);
    expect(organizer.body.image).toMatchObject({ id: 42 });
  });
});
