/// <reference lib="dom" />
/**
 * The links hub's language selects (the overlay's `ln` and the audience link's): the original and
 * the output room's translation targets, which the hub asks the outputs service for with the
 * output room's write token (the editor's Languages panel adds them), and again every
 * `REASK_MS` while the hub is in view (a language added in the editor meanwhile appears; the
 * selects are rebuilt only when the list changed). Without an outputs service or that token the
 * selects offer the original only, and a choice already made stays offered.
 */

import { byId, siteConfig } from '../lib/dom.js';
import { languageChoices, ORIGINAL } from '../lib/languages.js';
import { OutputsClient } from '../lib/outputs-client.js';

const ASK_AFTER_MS = 400;
const REASK_MS = 30_000;

export const overlayLanguage = () => byId<HTMLSelectElement>('overlay-ln');
export const audienceLanguage = () => byId<HTMLSelectElement>('audience-ln');

let targets: string[] = [];
let asked = '';
let timer: ReturnType<typeof setTimeout> | undefined;
/** The last asking, for the periodic one. */
let again: (() => void) | undefined;

function fill(select: HTMLSelectElement): void {
  const chosen = select.value || ORIGINAL;
  const choices = languageChoices([ORIGINAL, ...targets, chosen]).filter((c) => c.key !== 'all');
  select.replaceChildren(
    ...choices.map((choice) => {
      const option = new Option(choice.label, choice.key);
      if (choice.lang) option.lang = choice.lang;
      return option;
    }),
  );
  select.value = chosen;
}

/**
 * Asks the outputs service for the room's targets (once per room and token, after typing stops);
 * `changed` runs when the selects were filled again.
 */
export function refreshLanguages(room: string, writeToken: string, changed: () => void): void {
  const baseUrl = siteConfig().outputsUrl;
  const key = `${room}\u0000${writeToken}`;
  if (!baseUrl || !room || !writeToken || key === asked) return;
  again = () => {
    asked = '';
    refreshLanguages(room, writeToken, changed);
  };
  clearTimeout(timer);
  timer = setTimeout(async () => {
    asked = key;
    let now: string[];
    try {
      const list = await new OutputsClient({ baseUrl, room, token: writeToken }).translations();
      now = list.map((translation) => translation.target);
    } catch {
      // No outputs service answer (or a token it refuses): the original only, as without one.
      now = [];
    }
    if (now.join(' ') === targets.join(' ')) return;
    targets = now;
    fill(overlayLanguage());
    fill(audienceLanguage());
    changed();
  }, ASK_AFTER_MS);
}

export function startLanguages(): void {
  fill(overlayLanguage());
  fill(audienceLanguage());
  setInterval(() => {
    if (document.visibilityState === 'visible') again?.();
  }, REASK_MS);
}
