/**
 * The links hub's client of the stream sources service (services/sources): an event's sources,
 * added, changed, started, stopped and removed with the service access token as the bearer (the token the
 * hub already holds to read the relay settings). Browser-safe; `fetch` is injectable. Every failure
 * is a `ServiceRequestError` carrying the service's own message.
 */
import type {
  CreatedStreamSource,
  NewStreamSource,
  StreamSource,
  StreamSourceSettings,
} from '@live-captions/protocol';
import { serviceRequest } from './service-request.js';

export interface SourcesClientOptions {
  /** The service's base address, ending with `/` (`SITE_CONFIG.sourcesUrl`). */
  baseUrl: string;
  /** The service access token. */
  token: string;
  fetch?: typeof fetch;
}

export class SourcesClient {
  readonly #fetch: typeof fetch;

  constructor(private readonly options: SourcesClientOptions) {
    this.#fetch = options.fetch ?? ((...args) => fetch(...args));
  }

  /** The sources whose captions go to `room`. */
  async list(room: string): Promise<StreamSource[]> {
    const body = (await (await this.#request(`sources?room=${encodeURIComponent(room)}`)).json()) as {
      sources?: StreamSource[];
    };
    return Array.isArray(body.sources) ? body.sources : [];
  }

  /** Every source of every room (the rooms board shows each room's). */
  async all(): Promise<StreamSource[]> {
    const body = (await (await this.#request('sources')).json()) as { sources?: StreamSource[] };
    return Array.isArray(body.sources) ? body.sources : [];
  }

  /** The new source; for a push source also its URL and key, which no later answer shows whole. */
  async add(source: NewStreamSource): Promise<CreatedStreamSource> {
    const response = await this.#request('sources', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(source),
    });
    return (await response.json()) as CreatedStreamSource;
  }

  /** Changes a source's capture settings; a running source takes them from its next window. */
  async update(id: string, settings: Partial<StreamSourceSettings>): Promise<StreamSource> {
    const response = await this.#request(`sources/${encodeURIComponent(id)}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ settings }),
    });
    return ((await response.json()) as { source: StreamSource }).source;
  }

  async start(id: string): Promise<void> {
    await this.#request(`sources/${encodeURIComponent(id)}/start`, { method: 'POST' });
  }

  async stop(id: string): Promise<void> {
    await this.#request(`sources/${encodeURIComponent(id)}/stop`, { method: 'POST' });
  }

  async remove(id: string): Promise<void> {
    await this.#request(`sources/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  #request(path: string, init: RequestInit = {}): Promise<Response> {
    return serviceRequest(
      'stream sources service',
      this.#fetch,
      new URL(path, this.options.baseUrl),
      this.options.token,
      init,
    );
  }
}

const STATE_NAMES: Readonly<Record<StreamSource['state'], string>> = {
  connecting: 'Connecting',
  live: 'Live',
  silent: 'Silent',
  reconnecting: 'Reconnecting',
  failed: 'Failed',
  stopped: 'Stopped',
};

/** "Failed: Connection refused" / "Live" for a source's row. */
export function sourceStateLine(source: StreamSource): string {
  const name = STATE_NAMES[source.state] ?? source.state;
  return source.reason ? `${name}: ${source.reason}` : name;
}

/** "2.4 s behind live · 12 captions sent" for a running source; the count alone when stopped. */
export function sourceSummary(source: StreamSource): string {
  const sent = `${source.captionsSent} caption${source.captionsSent === 1 ? '' : 's'} sent`;
  if (!source.running) return sent;
  return `${source.behindSeconds.toFixed(1)} s behind live · ${sent}`;
}

const MODE_NAMES: Readonly<Record<StreamSourceSettings['mode'], string>> = {
  transcribe: 'transcript',
  translate: 'English translation',
  both: 'transcript and English translation',
};

/** "en · transcript · vocabulary set" for a source's row: what its captions are made with. */
export function sourceSettingsLine(settings: StreamSourceSettings): string {
  const parts = [settings.language, MODE_NAMES[settings.mode] ?? settings.mode];
  if (settings.vocabulary) parts.push('vocabulary set');
  return parts.join(' · ');
}
