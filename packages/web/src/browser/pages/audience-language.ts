/// <reference lib="dom" />
/**
 * The audience page's language: the select offers the languages the room carries (the original
 * and each translation seen, named in their own language, lib/languages.ts), the page shows only
 * the chosen one, and the choice is remembered on this device for the room (localStorage) and
 * written into the address's fragment (`ln=es`), which a reload reads first. A link that carries
 * `ln` (the hub's QR code) selects it. A language the room does not carry (yet) is said in one
 * line, and the original is shown until it comes.
 */

import type { Track } from '../lib/audience-transcript.js';
import { byId } from '../lib/dom.js';
import {
  addressWithTrack,
  initialTrack,
  languageChoices,
  languageKey,
  missingLine,
  ORIGINAL,
  parseRemembered,
  shownTrack,
} from '../lib/languages.js';

function remembered(room: string): string | undefined {
  try {
    return parseRemembered(localStorage.getItem(languageKey(room)));
  } catch {
    return undefined;
  }
}

function remember(room: string, track: string): void {
  try {
    localStorage.setItem(languageKey(room), track);
  } catch {
    // Private mode or full storage: the address still carries the choice through a reload.
  }
}

export class AudienceLanguage {
  private readonly select = byId<HTMLSelectElement>('track');
  private readonly notice = byId('language-notice');
  private readonly present = new Set<string>([ORIGINAL]);
  private originalLn: string | undefined;
  private chosen = ORIGINAL;
  private room: string | undefined;

  /** `onChange`: render again for the track now shown; `keepingLive` wraps layout changes. */
  constructor(
    private readonly onChange: () => void,
    private readonly keepingLive: (change: () => void) => void,
  ) {
    this.select.addEventListener('change', () => this.choose(this.select.value));
    this.update();
  }

  /** The room of the link and the link's `ln`: what the page starts with. */
  useRoom(room: string, fromLink: string | undefined): void {
    this.room = room;
    this.chosen = initialTrack(fromLink, remembered(room));
    // A link handed out in the room (its QR code) is this reader's choice until they change it.
    if (fromLink !== undefined) remember(room, this.chosen);
    this.update();
  }

  /** The track the view shows: the chosen one once the room carries it, else the original. */
  get shown(): string {
    return shownTrack(this.chosen, this.present).show;
  }

  /** Offers the tracks seen so far; returns whether the shown track changed (the chosen one came). */
  offer(tracks: readonly Track[]): boolean {
    const originalLn = tracks.find((t) => t.key === ORIGINAL)?.ln;
    if (tracks.every((t) => this.present.has(t.key)) && originalLn === this.originalLn) return false;
    const before = this.shown;
    for (const track of tracks) this.present.add(track.key);
    this.originalLn = originalLn;
    this.keepingLive(() => this.update());
    return this.shown !== before;
  }

  private choose(track: string): void {
    this.chosen = track;
    if (this.room !== undefined) remember(this.room, track);
    history.replaceState(history.state, '', addressWithTrack(location.href, track));
    this.keepingLive(() => this.update());
    this.onChange();
  }

  private update(): void {
    // The chosen language is offered even before it comes, so that the select says what was chosen.
    const choices = languageChoices([...this.present, this.chosen], this.originalLn);
    this.select.replaceChildren(
      ...choices.map((choice) => {
        const option = new Option(choice.label, choice.key);
        if (choice.lang) option.lang = choice.lang;
        return option;
      }),
    );
    this.select.value = this.chosen;
    const { show, missing } = shownTrack(this.chosen, this.present);
    this.notice.textContent = missing ? missingLine(missing) : '';
    this.notice.hidden = !missing;
    document.body.dataset.language = show;
  }
}
