// The schedule import of issue 41 at FOSDEM's size: a frab JSON export of 35 rooms and 800
// talks (generated), imported through the API into the bench database: a preview, the first
// import, a re-import of the same file (nothing to do), and a re-export with 80 talks moved.
import type { AddressInfo } from 'node:net';
import { buildApp, parseTokens } from '@live-captions/calendar/embedded';
import { fosdemSized, frabJson } from '../../services/calendar/test/import-fixtures.js';

const TOKEN = 'bench-import-editor';
// knex is the calendar's dependency, not the bench's: its type through the app's options.
type Knex = Parameters<typeof buildApp>[0]['knex'];

export async function benchImport(knex: Knex): Promise<void> {
  const app = buildApp({
    knex,
    restRoot: '/wp-json',
    timezone: 'UTC',
    tokens: parseTokens({ [TOKEN]: { user_id: 1, name: 'Bench', role: 'editor' } }),
    // Before the generated conference (February 2027), as an organiser would import it.
    now: () => new Date('2027-01-15T00:00:00Z'),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/wp-json/cal/events/v1/import`;
  const shape = fosdemSized();
  const first = frabJson(shape);
  // Every tenth talk moved by half an hour: a typical late re-export.
  const edited = frabJson({
    ...shape,
    edit: (t) =>
      t.id % 10 === 0
        ? {
            ...t,
            date: t.date
              .replace(':00+01:00', ':00+01:00')
              .replace(/T(\d\d):(\d\d)/, (_m, h, m) => `T${h}:${m === '00' ? '30' : '00'}`),
          }
        : t,
  });
  const run = async (label: string, content: string, dryRun = false) => {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ format: 'frab-json', content, dryRun }),
    });
    const body = (await res.json()) as { summary?: unknown; message?: string };
    const ms = performance.now() - started;
    console.log(
      `| ${label} | ${res.status} | ${ms.toFixed(0)} | ${JSON.stringify(body.summary ?? body.message)} |`,
    );
  };
  try {
    console.log(
      `\nschedule import (frab JSON, ${shape.rooms.length} rooms, 800 talks, ${(first.length / 1024).toFixed(0)} KiB), through the API:\n`,
    );
    console.log('| step | status | ms | summary |');
    console.log('|---|---|---|---|');
    await run('preview (dryRun) of the first import', first, true);
    await run('first import', first);
    await run('re-import, same file', first);
    await run('re-import, 80 talks moved', edited);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}
