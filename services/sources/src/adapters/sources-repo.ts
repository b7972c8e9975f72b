/** The stored sources (PostgreSQL, or PGlite without DATABASE_URL): what restarts resume. */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { SourceSettings, SourceStatus } from '../domain/source.js';
import type { InputKind } from '../domain/source-input.js';

/** A source as stored, with its secrets (they stay server-side). */
export interface SourceRow {
  id: string;
  room: string;
  name: string;
  kind: InputKind;
  url: string | null;
  streamKey: string | null;
  srtPort: number | null;
  settings: SourceSettings;
  running: boolean;
  createdAt: number;
  /** Runs so far: each runner of the source takes the next for its caption ids. */
  runSeq: number;
  captionsSent: number;
  status: SourceStatus | null;
  statusAt: number | null;
}

const rowOf = (r: Record<string, unknown>): SourceRow => ({
  id: String(r.id),
  room: String(r.room),
  name: String(r.name),
  kind: r.kind as InputKind,
  url: (r.url as string | null) ?? null,
  streamKey: (r.stream_key as string | null) ?? null,
  srtPort: r.srt_port === null ? null : Number(r.srt_port),
  settings: JSON.parse(String(r.settings)) as SourceSettings,
  running: Boolean(r.running),
  createdAt: Number(r.created_at),
  runSeq: Number(r.run_seq),
  captionsSent: Number(r.captions_sent),
  status: r.status ? (JSON.parse(String(r.status)) as SourceStatus) : null,
  statusAt: r.status_at === null ? null : Number(r.status_at),
});

export class PortsExhausted extends Error {}

export function sourcesRepo(knex: Knex) {
  const table = () => knex('src_sources');
  return {
    async list(room?: string): Promise<SourceRow[]> {
      const query = table().orderBy([{ column: 'created_at' }, { column: 'id' }]);
      if (room !== undefined) query.where({ room });
      return (await query).map(rowOf);
    },

    async get(id: string): Promise<SourceRow | undefined> {
      const row = await table().where({ id }).first();
      return row ? rowOf(row) : undefined;
    },

    async byStreamKey(key: string): Promise<SourceRow | undefined> {
      const row = await table().where({ stream_key: key }).first();
      return row ? rowOf(row) : undefined;
    },

    async countRunning(): Promise<number> {
      const [row] = await table().where({ running: true }).count({ n: '*' });
      return Number(row?.n ?? 0);
    },

    /** Adds a source; an SRT push source takes the lowest free port of `srtPorts`. */
    async add(
      source: Pick<SourceRow, 'room' | 'name' | 'kind' | 'url' | 'streamKey' | 'settings' | 'running'>,
      srtPorts: readonly [number, number],
    ): Promise<string> {
      const id = randomUUID();
      await knex.transaction(async (trx) => {
        let srtPort: number | null = null;
        if (source.kind === 'srt-push') {
          const taken = new Set(
            (await trx('src_sources').whereNotNull('srt_port').select('srt_port')).map((r) =>
              Number(r.srt_port),
            ),
          );
          for (let port = srtPorts[0]; port <= srtPorts[1] && srtPort === null; port++)
            if (!taken.has(port)) srtPort = port;
          if (srtPort === null) throw new PortsExhausted();
        }
        await trx('src_sources').insert({
          id,
          room: source.room,
          name: source.name,
          kind: source.kind,
          url: source.url,
          stream_key: source.streamKey,
          srt_port: srtPort,
          settings: JSON.stringify(source.settings),
          running: source.running,
          created_at: Date.now(),
        });
      });
      return id;
    },

    async setRunning(id: string, running: boolean): Promise<boolean> {
      return (await table().where({ id }).update({ running })) > 0;
    },

    async setSettings(id: string, settings: SourceSettings): Promise<void> {
      await table()
        .where({ id })
        .update({ settings: JSON.stringify(settings) });
    },

    async remove(id: string): Promise<boolean> {
      return (await table().where({ id }).del()) > 0;
    },

    /** Takes the next run number of a source (one row update, whichever replica asks); 0: no such source. */
    async nextRun(id: string): Promise<number> {
      const [row] = await table().where({ id }).increment('run_seq', 1).returning(['run_seq']);
      return Number((row as { run_seq: number } | undefined)?.run_seq ?? 0);
    },

    async countSent(id: string, captions: number): Promise<void> {
      await table().where({ id }).increment('captions_sent', captions);
    },

    async report(id: string, status: SourceStatus): Promise<void> {
      await table()
        .where({ id })
        .update({ status: JSON.stringify(status), status_at: Date.now() });
    },
  };
}

export type SourcesRepo = ReturnType<typeof sourcesRepo>;
