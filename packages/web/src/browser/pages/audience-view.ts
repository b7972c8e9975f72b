/// <reference lib="dom" />
/**
 * The audience page's captions on screen: one element per caption, updated in place (no list
 * rebuilt per caption), following the live end unless the reader scrolled up (then "Jump to
 * live" shows), and announcing finals politely: at most one announcement per burst (a replay of
 * the session so far, or captions arriving together), never interim text.
 */

import { atLiveEdge } from '../lib/audience-settings.js';
import {
  ALL_TRACKS,
  type AudienceTranscript,
  type Change,
  type Line,
  type Track,
} from '../lib/audience-transcript.js';
import { languageName } from '../lib/dom.js';

const ANNOUNCE_AFTER_MS = 400;

export function trackLabel(track: Track): string {
  const name = track.ln ? languageName(track.ln) : '';
  if (track.translation) return name ? `${name} (translation)` : 'Translation';
  return name ? `${name} (transcript)` : 'Transcript';
}

export class AudienceView {
  private readonly elements = new Map<string, HTMLElement>();
  private announceTimer: ReturnType<typeof setTimeout> | undefined;
  private pendingAnnouncement = '';

  constructor(
    private readonly model: AudienceTranscript,
    private readonly container: HTMLElement,
    private readonly empty: HTMLElement,
    private readonly jump: HTMLButtonElement,
    private readonly announcer: HTMLElement,
    private readonly show: () => string,
  ) {
    // Scrolling back to the end hides the button (whether captions follow is decided per change).
    addEventListener(
      'scroll',
      () => {
        if (this.atLive()) this.jump.hidden = true;
      },
      { passive: true },
    );
    jump.addEventListener('click', () => {
      this.jump.hidden = true;
      this.toLive();
    });
  }

  /** One caption changed the model. */
  apply(change: Change): void {
    if (change.kind === 'none') return;
    const live = this.atLive();
    for (const id of this.model.takeDropped()) {
      this.elements.get(id)?.remove();
      this.elements.delete(id);
    }
    this.renderLine(change.id);
    const shown = this.show();
    if (change.final && change.kind !== 'removed' && (shown === ALL_TRACKS || shown === change.track.key)) {
      this.announce(change.text);
    }
    this.afterChange(live);
  }

  /** Runs a layout change (text size, settings panel) and stays at the live end if the reader was there. */
  keepingLive(change: () => void): void {
    const live = this.atLive();
    change();
    if (live) this.toLive();
  }

  /** Everything again (another track chosen). */
  renderAll(): void {
    const live = this.atLive();
    for (const element of this.elements.values()) element.remove();
    this.elements.clear();
    for (const line of this.model.lines(this.show())) this.container.append(this.lineElement(line));
    this.afterChange(live);
  }

  private renderLine(id: string): void {
    const line = this.model.line(id, this.show());
    const existing = this.elements.get(id);
    if (!line) {
      existing?.remove();
      this.elements.delete(id);
      return;
    }
    const element = this.lineElement(line);
    if (existing) {
      existing.replaceWith(element);
    } else {
      // A caption new to this view goes after the last one shown before it in the session.
      const ids = this.model.lines(this.show()).map((l) => l.id);
      const before = ids
        .slice(0, ids.indexOf(id))
        .reverse()
        .find((other) => this.elements.has(other));
      // The "no captions yet" line stays first in the container (hidden once there are some).
      (before ? this.elements.get(before)! : this.empty).after(element);
    }
    this.elements.set(id, element);
  }

  private lineElement(line: Line): HTMLElement {
    const element = document.createElement('p');
    element.className = 'caption';
    element.dataset.id = line.id;
    const several = line.parts.length > 1;
    for (const part of line.parts) {
      const span = document.createElement('span');
      span.className = 'caption-part';
      if (part.interim) span.classList.add('interim');
      if (part.track.translation) span.classList.add('translation');
      if (part.track.ln) span.lang = part.track.ln;
      if (several && part.track.ln) {
        const tag = document.createElement('span');
        tag.className = 'lang';
        tag.textContent = part.track.ln;
        tag.setAttribute('aria-hidden', 'true');
        span.append(tag);
      }
      span.append(part.text);
      element.append(span);
    }
    this.elements.set(line.id, element);
    return element;
  }

  /**
   * Follows the live end when the reader was there before the change (read from the view itself,
   * not from the last scroll event, which may not have been dispatched yet); else offers the jump.
   */
  private afterChange(wasLive: boolean): void {
    this.empty.hidden = this.elements.size > 0;
    if (wasLive) this.toLive();
    else this.jump.hidden = false;
  }

  private atLive(): boolean {
    return atLiveEdge(document.scrollingElement ?? document.documentElement);
  }

  private toLive(): void {
    const scroller = document.scrollingElement ?? document.documentElement;
    scroller.scrollTop = scroller.scrollHeight;
  }

  /** The latest final of a burst, once per ANNOUNCE_AFTER_MS (the timer is not reset by the burst). */
  private announce(text: string): void {
    this.pendingAnnouncement = text;
    this.announceTimer ??= setTimeout(() => {
      this.announceTimer = undefined;
      this.announcer.textContent = this.pendingAnnouncement;
    }, ANNOUNCE_AFTER_MS);
  }
}
