/**
 * The editor's client of the outputs service (services/outputs): a room's destinations and its
 * archived sessions, with the room's token as the bearer. Browser-safe; `fetch` is injectable for
 * tests. Every failure becomes an `OutputsRequestError` carrying the service's own message.
 */

import type { CaptionFileFormat } from '@live-captions/caption-files';
import type { ArchiveSession, Destination, NewDestination } from '@live-captions/protocol';

export class OutputsRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'OutputsRequestError';
  }
}

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

  /** The session's file and the name the service gives it. */
  async download(session: string, format: CaptionFileFormat): Promise<{ name: string; text: string }> {
    const response = await this.#request(`archive/${encodeURIComponent(session)}.${format}`);
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `${this.options.room}-${session}.${format}`;
    return { name, text: await response.text() };
  }

  async deleteSession(session: string): Promise<void> {
    await this.#request(`archive/${encodeURIComponent(session)}`, { method: 'DELETE' });
  }

  async #json<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await (await this.#request(path, init)).json()) as T;
  }

  async #request(path: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      response = await this.#fetch(new URL(path, this.#base), {
        ...init,
        headers: { ...init.headers, Authorization: `Bearer ${this.options.token}` },
        cache: 'no-store',
      });
    } catch {
      throw new OutputsRequestError('The outputs service cannot be reached', 0);
    }
    if (response.ok) return response;
    let message = `The outputs service answered ${response.status}`;
    try {
      const body = (await response.json()) as { error?: { message?: unknown } };
      if (typeof body.error?.message === 'string') message = body.error.message;
    } catch {
      // Not our JSON (a proxy's error page): the status says enough.
    }
    throw new OutputsRequestError(message, response.status);
  }
}

/** "3 behind · last error: …" for a destination's row. */
export function destinationSummary(destination: Destination): string {
  const parts = [`${destination.sent} sent`];
  if (destination.behind > 0) parts.push(`${destination.behind} behind`);
  if (destination.lastError) parts.push(`last error: ${destination.lastError.message}`);
  return parts.join(' · ');
}
