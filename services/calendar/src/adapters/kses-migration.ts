import type { Knex } from 'knex';
import { hasUnfilteredHtml, type User } from '../domain/auth.js';
import { columnOf, filterHtml, type HtmlKind, htmlFields } from '../domain/safe-fields.js';

const tables: Record<HtmlKind, string> = {
  event: 'cal_events',
  venue: 'cal_venues',
  organizer: 'cal_organizers',
  term: 'cal_terms',
};
const BATCH = 500;

/**
 * Filters what was stored before writes were filtered: every record whose author is not a known
 * editor or administrator (`users`, the tokens file of the run) gets its HTML fields through the
 * kses of its kind, as if written now. A record whose author is unknown (no tokens file, a user
 * removed since) is filtered: its author's right to unfiltered HTML cannot be shown. Terms record
 * no author, so they are all filtered. Only changed rows are written.
 */
export async function filterStoredHtml(knex: Knex, users: User[]): Promise<void> {
  const unfiltered = new Set(users.filter(hasUnfilteredHtml).map((user) => user.id));
  for (const kind of Object.keys(tables) as HtmlKind[]) {
    const fields = Object.keys(htmlFields[kind]);
    const columns = [...new Set(fields.map((field) => columnOf(kind, field)))];
    const hasAuthor = kind !== 'term';
    for (let after = 0; ; ) {
      const rows = (await knex(tables[kind])
        .select(['id', ...(hasAuthor ? ['author'] : []), ...columns])
        .where('id', '>', after)
        .orderBy('id')
        .limit(BATCH)) as Record<string, unknown>[];
      if (rows.length === 0) break;
      after = rows.at(-1)!.id as number;
      for (const row of rows) {
        if (hasAuthor && unfiltered.has(row.author as number)) continue;
        const input = Object.fromEntries(fields.map((field) => [field, row[columnOf(kind, field)]]));
        const filtered = filterHtml(kind, input, undefined) as Record<string, unknown>;
        const changes: Record<string, unknown> = {};
        for (const field of fields) {
          if (filtered[field] !== input[field]) changes[columnOf(kind, field)] = filtered[field];
        }
        if (Object.keys(changes).length > 0)
          await knex(tables[kind])
            .where('id', row.id as number)
            .update(changes);
      }
    }
  }
}
