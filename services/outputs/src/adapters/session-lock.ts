import type { Knex } from 'knex';

/**
 * Serialises, per room, the transactions that open or close its archive sessions: a caption
 * being archived (ingest), the scheduler's event PUT (a retry or another replica's at the same
 * time) and a destination added or removed. Without it two of them could each find no open
 * session, or the same one, and leave two sessions open; or one could delete an empty session
 * the other is writing into. A transaction-scoped advisory lock: released by the commit or
 * rollback, never left behind by a crash. (PGlite runs one transaction at a time and takes it at
 * once.)
 */
export async function lockRoomSessions(trx: Knex.Transaction, room: string): Promise<void> {
  await trx.raw('SELECT pg_advisory_xact_lock(hashtextextended(?, 41))', [`out_sessions ${room}`]);
}
