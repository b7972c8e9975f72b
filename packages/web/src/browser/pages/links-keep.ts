/// <reference lib="dom" />
/**
 * What the links hub keeps for its tab (`sessionStorage`, as the capture page keeps its token and
 * the readers their links): the access token, the relay settings of step 2 and the overlay look
 * of step 3, so that a reload (F5, a crashed tab) shows the same links instead of "0 of 4 links
 * ready" with the token gone from the address bar. Only this tab: a new tab or window starts
 * empty unless "Remember it on this device" keeps the token (links.ts).
 */
import { byId } from '../lib/dom.js';
import { loadKept, storeKept, tabStorage } from '../lib/reader-link.js';

const KEY = 'live-captions.links-hub';

/** The fields kept; the language lists are left out (they fill themselves from the relay). */
const FIELDS = [
  'capture-url',
  'api-key',
  'relay-url',
  'source-room',
  'output-room',
  'source-read',
  'source-write',
  'output-read',
  'output-write',
  'maxlines',
  'showtime',
  'fontsize',
  'color',
  'font',
  'position',
  'bg',
  'clear',
  'dual',
  'obs-port',
  'obs-password',
] as const;

type Kept = Partial<Record<(typeof FIELDS)[number], string | boolean>>;

const field = (id: string) => byId<HTMLInputElement | HTMLSelectElement>(id);
const isCheck = (element: HTMLElement): element is HTMLInputElement =>
  element instanceof HTMLInputElement && element.type === 'checkbox';

/** Writes the fields into the tab's storage (after each change and each fill-in). */
export function keepHub(): void {
  const kept: Kept = {};
  for (const id of FIELDS) {
    const element = field(id);
    kept[id] = isCheck(element) ? element.checked : element.value;
  }
  storeKept(tabStorage(), KEY, kept);
}

/**
 * Puts back what this tab kept, if anything. Returns whether relay settings came back: then they
 * are shown as they were (a room picked from the board included) rather than fetched afresh.
 */
export function restoreHub(): boolean {
  const kept = loadKept<Kept>(tabStorage(), KEY);
  if (!kept) return false;
  for (const id of FIELDS) {
    const value = kept[id];
    const element = field(id);
    if (isCheck(element) && typeof value === 'boolean') element.checked = value;
    else if (!isCheck(element) && typeof value === 'string') element.value = value;
  }
  return typeof kept['relay-url'] === 'string' && Boolean(kept['source-room'] || kept['output-room']);
}

/** Keeps the fields whenever one of them changes. */
export function watchHub(): void {
  for (const id of FIELDS) {
    field(id).addEventListener('input', keepHub);
    field(id).addEventListener('change', keepHub);
  }
  // The board's Use and the capture host's answer set values without events.
  addEventListener('pagehide', keepHub);
}
