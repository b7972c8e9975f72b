/** A room's vocabulary: the names its translations keep unchanged. */
import type { Knex } from 'knex';

export function vocabularyRepo(knex: Knex) {
  return {
    async get(room: string): Promise<string[]> {
      const [row] = await knex('out_vocabulary').where({ room }).select('terms');
      return row ? (JSON.parse(String(row.terms)) as string[]) : [];
    },

    /** Replaces the room's terms (an empty list removes them). */
    async set(room: string, terms: readonly string[]): Promise<void> {
      if (terms.length === 0) {
        await knex('out_vocabulary').where({ room }).del();
        return;
      }
      await knex('out_vocabulary')
        .insert({ room, terms: JSON.stringify(terms) })
        .onConflict('room')
        .merge();
    },
  };
}

export type VocabularyRepo = ReturnType<typeof vocabularyRepo>;
