/**
 * The outputs service's transcript archive, as the scheduler conducts it over HTTP: which talk a
 * room's captions belong to now (`PUT /rooms/:room/archive/event`), and a talk's public
 * transcript files (`GET /transcripts/:session`).
 */
import type { Talk, TalkTranscript } from '../domain/schedule.js';

const TIMEOUT_MS = 10_000;

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

interface TranscriptAnswer {
  tracks?: { track?: unknown; srt?: unknown; vtt?: unknown; txt?: unknown }[];
}

export class ArchiveClient {
  private readonly base: string;

  /** `internalUrl`: where this service calls it; `publicUrl`: where the audience downloads. */
  constructor(
    internalUrl: string,
    private readonly publicUrl: string,
  ) {
    this.base = internalUrl.endsWith('/') ? internalUrl : `${internalUrl}/`;
    if (!this.publicUrl.endsWith('/')) this.publicUrl = `${this.publicUrl}/`;
  }

  /**
   * From now on the output room's captions are the talk's (null: between talks); its session id
   * (null between talks in a room without an archive: nothing is kept there).
   */
  async markTalk(outputRoom: string, writeToken: string, talk: Talk | null): Promise<string | null> {
    const event = talk && {
      id: talk.id,
      title: talk.title.slice(0, 500),
      start: new Date(talk.start).toISOString(),
      end: new Date(talk.end).toISOString(),
    };
    const response = await this.call(`rooms/${encodeURIComponent(outputRoom)}/archive/event`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${writeToken}` },
      body: JSON.stringify({ event }),
    });
    const body = (await response.json().catch(() => undefined)) as
      | { session?: { id?: unknown } | null; error?: { code?: string } }
      | undefined;
    const id = body?.session?.id;
    if (!response.ok || !(typeof id === 'string' || (talk === null && body?.session === null)))
      throw new ArchiveError(
        `outputs answered ${response.status} ${body?.error?.code ?? ''} to the talk's archive`.trim(),
      );
    return typeof id === 'string' ? id : null;
  }

  /** A session's transcript files per track, as absolute public links. */
  async transcripts(session: string): Promise<TalkTranscript[]> {
    const response = await this.call(`transcripts/${encodeURIComponent(session)}`, { method: 'GET' });
    const body = (await response.json().catch(() => undefined)) as TranscriptAnswer | undefined;
    if (!response.ok || !Array.isArray(body?.tracks))
      throw new ArchiveError(`outputs answered ${response.status} for the transcripts of a talk`);
    const link = (path: unknown) => (typeof path === 'string' ? new URL(path, this.publicUrl).href : '');
    return body.tracks.map((t) => ({
      track: typeof t.track === 'string' ? t.track : '',
      srt: link(t.srt),
      vtt: link(t.vtt),
      txt: link(t.txt),
    }));
  }

  private async call(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new ArchiveError(`outputs unreachable (${cause})`);
    }
  }
}
