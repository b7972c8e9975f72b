/**
 * A reader page's link (the audience page, the overlay): relay address, room and read token, from
 * the link's fragment, kept for the tab. The page takes the token out of the address bar once it
 * has read it (so that it stays out of screenshots and history), so a reload finds the address
 * without it: the tab keeps what the fragment carried in `sessionStorage`, which lives as long as
 * the tab does (through reloads, a phone browser's restoring of a discarded tab, and a restarted
 * OBS browser source that keeps its page) and is never shared with other tabs or written to disk
 * for later visits: a shared phone or a kiosk keeps no token once the tab is closed.
 */
import { isRelayUrl } from './params.js';

export interface ReaderLink {
  url: string;
  room: string;
  token: string;
}

interface Kept {
  relayUrl?: string;
  room?: string;
  token?: string;
}

/** The key the tab keeps a page's link under. */
export const linkKey = (page: string) => `live-captions.link.${page}`;

/** The tab's `sessionStorage`, or none where the browser refuses it (sandboxed frames). */
export function tabStorage(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

/** Reads `sessionStorage`-like storage defensively: a blocked or full storage keeps nothing. */
export function loadKept<T>(storage: Storage | undefined, key: string): Partial<T> | undefined {
  try {
    const text = storage?.getItem(key);
    const value = text ? (JSON.parse(text) as unknown) : undefined;
    return value && typeof value === 'object' ? (value as Partial<T>) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes defensively; false when the storage refused (private mode, quota). */
export function storeKept(storage: Storage | undefined, key: string, value: unknown): boolean {
  try {
    storage?.setItem(key, JSON.stringify(value));
    return storage !== undefined;
  } catch {
    return false;
  }
}

/**
 * The link from the page's parameters, else from what this tab kept for the same room (a link
 * for another room never gets this one's token). A link with a token is kept for the next load.
 * `fallbackUrl`: the site's relay address (`/site-config.js`).
 */
export function readerLink(
  page: string,
  get: (name: string) => string | undefined,
  storage: Storage | undefined,
  fallbackUrl?: string,
): ReaderLink | undefined {
  const given: Kept = { relayUrl: get('relayUrl'), room: get('room'), token: get('relayReadToken') };
  let link = given;
  if (given.token && given.room) {
    storeKept(storage, linkKey(page), {
      room: given.room,
      token: given.token,
      ...(given.relayUrl ? { relayUrl: given.relayUrl } : {}),
    });
  } else if (!given.token) {
    const kept = loadKept<Kept>(storage, linkKey(page));
    if (kept?.token && typeof kept.room === 'string' && (!given.room || given.room === kept.room)) {
      link = {
        room: kept.room,
        token: String(kept.token),
        relayUrl: given.relayUrl ?? (typeof kept.relayUrl === 'string' ? kept.relayUrl : undefined),
      };
    }
  }
  const url = link.relayUrl ?? fallbackUrl;
  if (!isRelayUrl(url) || !link.room || !link.token) return undefined;
  return { url, room: link.room, token: link.token };
}
