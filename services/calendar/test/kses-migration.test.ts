import { describe, expect, it } from '@jest/globals';
import { filterStoredHtml } from '../src/adapters/kses-migration.js';
import { calendarMigrations } from '../src/adapters/migrations.js';
import { parseTokens } from '../src/adapters/tokens.js';
import { ROOT, tokenFile, useTestApi } from './helpers.js';

// Issue 28: migration 0005 filters what roles without unfiltered_html stored before writes were
// filtered. Records are written by an administrator (kept as sent), then their author is changed
// in SQL to the author they would have had.
const api = useTestApi({ now: () => new Date('2030-06-15T12:00:00Z') });
const users = [...parseTokens(tokenFile).values()];
const markup = '<strong>ok</strong><script>alert(1)</script><img src=x onerror=alert(2)>';
const dates = { start_date: '2030-07-01 18:00:00', end_date: '2030-07-01 21:00:00' };

async function stored(path: string, body: Record<string, unknown>, author: number) {
  const res = await api.by('admin').post(path, body);
  expect(res.status).toBe(201);
  const table = path === 'categories' ? 'cal_terms' : `cal_${path}`;
  if (path !== 'categories') await api.knex(table).where('id', res.body.id).update({ author });
  return { table, id: res.body.id as number };
}

describe('0005_filter_stored_html', () => {
  it('filters records of authors, contributors and unknown users; keeps editors and administrators', async () => {
    const records = {
      author: await stored('events', { title: `A${markup}`, description: markup, ...dates }, 3),
      contributor: await stored('venues', { venue: `C${markup}`, city: markup }, 4),
      unknown: await stored('organizers', { organizer: `U${markup}`, description: markup }, 99),
      editor: await stored('events', { title: `E${markup}`, description: markup, ...dates }, 2),
      admin: await stored('venues', { venue: `Ad${markup}`, city: markup }, 1),
      term: await stored('categories', { name: `T${markup}`, description: markup }, 0),
    };
    await filterStoredHtml(api.knex, users);
    const row = async (key: keyof typeof records) =>
      api.knex(records[key].table).where('id', records[key].id).first();
    expect(await row('author')).toMatchObject({
      title: 'A<strong>ok</strong>',
      description: '<strong>ok</strong><img src="x" />',
    });
    expect(await row('contributor')).toMatchObject({
      title: 'C<strong>ok</strong>',
      city: '<strong>ok</strong>',
    });
    expect(await row('unknown')).toMatchObject({
      title: 'U<strong>ok</strong>',
      description: '<strong>ok</strong><img src="x" />',
    });
    expect(await row('editor')).toMatchObject({ title: `E${markup}`, description: markup });
    expect(await row('admin')).toMatchObject({ title: `Ad${markup}`, city: markup });
    expect(await row('term')).toMatchObject({
      name: 'T<strong>ok</strong>',
      description: '<strong>ok</strong>',
    });
    const read = await api.request.get(`${ROOT}/events/${records.author.id}`);
    expect(read.body.title).toBe('A<strong>ok</strong>');
  });

  it('is in the migration list, after the list generation', async () => {
    const names = await calendarMigrations(users).migrationSource!.getMigrations([]);
    expect(names.indexOf('0005_filter_stored_html')).toBeGreaterThan(names.indexOf('0004_list_generation'));
    const applied = await api.knex('cal_migrations').pluck('name');
    expect(applied).toContain('0005_filter_stored_html');
  });
});
