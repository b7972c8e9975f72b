/// <reference lib="dom" />
/**
 * The audience page's display controls: text size and colours, applied to the page (CSS custom property, `data-theme` and the dark palette's stylesheet, no inline
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
import { byId, loadJson } from '../lib/dom.js';

export class AudienceControls {
  settings: AudienceSettings;
  private readonly toggle = byId<HTMLButtonElement>('display-toggle');
  private readonly panel = byId('display');
  private readonly size = byId<HTMLOutputElement>('text-size');
  private readonly themes = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="theme"]'));
  /** audience-dark.css, and the device's dark preference its media starts as. */
  private readonly darkPalette = byId<HTMLLinkElement>('dark-palette');
  private readonly deviceDark = this.darkPalette.media;

  /** `keepingLive` wraps changes of the layout so that a reader at the live end stays there. */
  constructor(private readonly keepingLive: (change: () => void) => void) {
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
    this.apply();
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
  }
}
