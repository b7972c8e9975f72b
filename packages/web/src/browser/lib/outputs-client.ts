/**
 * The editor's client of the outputs service (services/outputs): a room's destinations, its
 * archived sessions, its translation targets and vocabulary, with the room's token as the bearer.
 * Browser-safe; `fetch` is injectable for tests. Every failure becomes an `OutputsRequestError`
 * carrying the service's own message (service-request.ts).
 */

import type { CaptionFileFormat } from '@live-captions/caption-files';
import type {
  ArchiveSession,
  CaptionTrack,
  Destination,
  NewDestination,
  NewTranslation,
  Translation,
  TranslationEngineKind,
  TranslationLanguages,
} from '@live-captions/protocol';
import { serviceRequest } from './service-request.js';

/** What every failed call throws (the service's own message). */
export { ServiceRequestError as OutputsRequestError } from './service-request.js';

/** What `translation-languages` is asked with: an engine's settings, as a new translation's. */
export type EngineQuery = { engine: TranslationEngineKind } & Pick<NewTranslation, 'url' | 'key' | 'source'>;

export interface OutputsClientOptions {
  /** The service's base address, ending with `/` (`SITE_CONFIG.outputsUrl`). */
  baseUrl: string;
  room: string;
  token: string;
  fetch?: typeof fetch;
}

export class OutputsClient {
  readonly #base: URL;
  readonly #fetch: typeof fetch;

  constructor(private readonly options: OutputsClientOptions) {
    this.#base = new URL(`rooms/${encodeURIComponent(options.room)}/`, options.baseUrl);
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
  }

  /** The service and room this client asks about (never the token). */
  get room(): string {
    return this.#base.href;
  }

  async destinations(): Promise<Destination[]> {
    const body = await this.#json<{ destinations?: Destination[] }>('destinations');
    return Array.isArray(body.destinations) ? body.destinations : [];
  }

  async add(destination: NewDestination): Promise<Destination> {
    const body = await this.#json<{ destination: Destination }>('destinations', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(destination),
    });
    return body.destination;
  }

  async remove(id: string): Promise<void> {
    await this.#request(`destinations/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  async sessions(): Promise<ArchiveSession[]> {
    const body = await this.#json<{ sessions?: ArchiveSession[] }>('archive');
    return Array.isArray(body.sessions) ? body.sessions : [];
  }

  /** The session's file of one track (the original by default) and the name the service gives it. */
  async download(
    session: string,
    format: CaptionFileFormat,
    track: CaptionTrack = 'original',
  ): Promise<{ name: string; text: string }> {
    const file = archiveFile(session, format, track);
    const response = await this.#request(`archive/${encodeURIComponent(file)}`);
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${this.options.room}-${file}`;
    return { name, text: await response.text() };
  }

  async deleteSession(session: string): Promise<void> {
    await this.#request(`archive/${encodeURIComponent(session)}`, { method: 'DELETE' });
  }

  async translations(): Promise<Translation[]> {
    const body = await this.#json<{ translations?: Translation[] }>('translations');
    return Array.isArray(body.translations) ? body.translations : [];
  }

  /** The targets the engine reports for these settings (the service asks it; a key stays there). */
  async languages(query: EngineQuery): Promise<TranslationLanguages> {
    return this.#json<TranslationLanguages>('translation-languages', jsonPost(query));
  }

  async addTranslation(translation: NewTranslation): Promise<Translation> {
    return (await this.#json<{ translation: Translation }>('translations', jsonPost(translation)))
      .translation;
  }

  async removeTranslation(id: string): Promise<void> {
    await this.#request(`translations/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  async vocabulary(): Promise<string[]> {
    const body = await this.#json<{ terms?: string[] }>('vocabulary');
    return Array.isArray(body.terms) ? body.terms : [];
  }

  async setVocabulary(terms: string[]): Promise<string[]> {
    const body = await this.#json<{ terms?: string[] }>('vocabulary', {
      ...jsonPost({ terms }),
      method: 'PUT',
    });
    return Array.isArray(body.terms) ? body.terms : terms;
  }

  async #json<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await (await this.#request(path, init)).json()) as T;
  }

  #request(path: string, init: RequestInit = {}): Promise<Response> {
    return serviceRequest(
      'outputs service',
      this.#fetch,
      new URL(path, this.#base),
      this.options.token,
      init,
    );
  }
}

function jsonPost(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
}

/** An archived session's file name: `<session>.<ext>` for the original, `<session>.<track>.<ext>` else. */
export function archiveFile(
  session: string,
  format: CaptionFileFormat,
  track: CaptionTrack = 'original',
): string {
  return track === 'original' ? `${session}.${format}` : `${session}.${track}.${format}`;
}

const ENGINE_NAMES: Readonly<Record<TranslationEngineKind, string>> = {
  apertium: 'Apertium',
  libretranslate: 'LibreTranslate',
  deepl: 'DeepL',
};

/** "Apertium at http://apy:2737 · from en · key …abcd" for a translation's row (the key as the service masks it). */
export function engineSummary(translation: Translation): string {
  const parts = [`${ENGINE_NAMES[translation.engine] ?? translation.engine} at ${translation.endpoint}`];
  parts.push(`from ${translation.source}`);
  if (translation.key) parts.push(`key ${translation.key}`);
  return parts.join(' · ');
}

/** "12 sent · 3 behind · last error: …" for a translation's row. */
export function translationSummary(translation: Translation): string {
  const parts = [`${translation.sent} sent`];
  if (translation.behind > 0) parts.push(`${translation.behind} behind`);
  if (translation.lastError) parts.push(`last error: ${translation.lastError.message}`);
  return parts.join(' · ');
}

/** "3 behind · last error: …" for a destination's row. */
export function destinationSummary(destination: Destination): string {
  const parts = [`${destination.sent} sent`];
  if (destination.behind > 0) parts.push(`${destination.behind} behind`);
  if (destination.skipped > 0) parts.push(`${destination.skipped} too late for live (archived only)`);
  if (destination.lastError) parts.push(`last error: ${destination.lastError.message}`);
  return parts.join(' · ');
}
