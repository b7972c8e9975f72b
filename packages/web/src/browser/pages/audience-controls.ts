/// <reference lib="dom" />
/**
 * The audience page's display controls: text size, colours and the track to show, applied to
 * the page (CSS custom property, `data-theme` and the dark palette's stylesheet, no inline
 * styles) and kept in localStorage.
 */

import {
  type AudienceSettings,
  parseSettings,
  resize,
  SETTINGS_KEY,
  sizePercent,
  TEXT_SIZES,
  type Theme,
} from '../lib/audience-settings.js';
import { ALL_TRACKS, type Track } from '../lib/audience-transcript.js';
import { byId, loadJson } from '../lib/dom.js';
import { trackLabel } from './audience-view.js';

export class AudienceControls {
  settings: AudienceSettings;
  private readonly toggle = byId<HTMLButtonElement>('display-toggle');
  private readonly panel = byId('display');
  private readonly size = byId<HTMLOutputElement>('text-size');
  private readonly track = byId<HTMLSelectElement>('track');
  private readonly themes = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="theme"]'));
  /** audience-dark.css, and the device's dark preference its media starts as. */
  private readonly darkPalette = byId<HTMLLinkElement>('dark-palette');
  private readonly deviceDark = this.darkPalette.media;
  private readonly trackKeys = new Set<string>();

  /**
   * `onTrackChange`: render again for the chosen track; `keepingLive` wraps changes of the layout
   * so that a reader at the live end stays there.
   */
  constructor(
    private readonly onTrackChange: () => void,
    private readonly keepingLive: (change: () => void) => void,
  ) {
    this.settings = parseSettings(loadJson<AudienceSettings>(localStorage, SETTINGS_KEY));
    this.toggle.addEventListener('click', () => {
      const open = this.panel.hidden;
      this.keepingLive(() => {
        this.panel.hidden = !open;
      });
      this.toggle.setAttribute('aria-expanded', String(open));
    });
    byId('text-smaller').addEventListener('click', () => this.change(resize(this.settings, -1)));
    byId('text-larger').addEventListener('click', () => this.change(resize(this.settings, 1)));
    for (const radio of this.themes) {
      radio.addEventListener('change', () => {
        if (radio.checked) this.change({ ...this.settings, theme: radio.value as Theme });
      });
    }
    this.track.addEventListener('change', () => {
      this.change({ ...this.settings, track: this.track.value });
      this.onTrackChange();
    });
    this.apply();
  }

  /** The track to show: the saved one once the room has carried it, else everything. */
  get shown(): string {
    return this.trackKeys.has(this.settings.track) ? this.settings.track : ALL_TRACKS;
  }

  /** Offers the tracks seen so far; returns whether the shown track changed (a saved one appeared). */
  offerTracks(tracks: Track[]): boolean {
    if (tracks.every((t) => this.trackKeys.has(t.key))) return false;
    const before = this.shown;
    for (const track of tracks) {
      if (this.trackKeys.has(track.key)) continue;
      this.trackKeys.add(track.key);
      this.track.append(new Option(trackLabel(track), track.key));
    }
    this.track.value = this.shown;
    return this.shown !== before;
  }

  private change(settings: AudienceSettings): void {
    this.settings = settings;
    try {
      localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
    } catch {
      // Private mode or full storage: the choice holds for this visit only.
    }
    this.keepingLive(() => this.apply());
  }

  private apply(): void {
    const root = document.documentElement;
    root.style.setProperty('--audience-size', `${TEXT_SIZES[this.settings.size]}rem`);
    if (this.settings.theme) root.dataset.theme = this.settings.theme;
    else delete root.dataset.theme;
    const theme = this.settings.theme;
    this.darkPalette.media = theme === undefined ? this.deviceDark : theme === 'dark' ? 'all' : 'not all';
    this.size.value = `${sizePercent(this.settings)} %`;
    for (const radio of this.themes) radio.checked = radio.value === this.settings.theme;
    this.track.value = this.shown;
  }
}
