/// <reference lib="dom" />
/**
 * The audience page's captions on screen: one element per caption, updated in place (no list
 * rebuilt per caption), following the live end unless the reader scrolled back themselves (then
 * "Jump to live" shows), and announcing finals politely: at most one announcement per burst (a
 * replay of the session so far, or captions arriving together), never interim text.
 *
 * Whether the view follows is the reader's decision, not the geometry's: only a scroll the reader
 * made (wheel, touch, keys, the scroll bar) within the last second can stop it, and reaching the
 * live end or "Jump to live" starts it again. A layout change (a longer status line, a burst of
 * replayed captions after a reconnect, the Display panel) never stops it.
 */

import { atLiveEdge } from '../lib/audience-settings.js';
import { ALL_TRACKS, type AudienceTranscript, type Change, type Line } from '../lib/audience-transcript.js';
import { langAttribute } from '../lib/languages.js';

const ANNOUNCE_AFTER_MS = 400;
/** A scroll this soon after the reader's own input is the reader's. */
const USER_SCROLL_MS = 1000;
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);

export class AudienceView {
  private readonly elements = new Map<string, HTMLElement>();
  private announceTimer: ReturnType<typeof setTimeout> | undefined;
  private pendingAnnouncement = '';
  /** The view keeps the live end in sight (until the reader scrolls back). */
  following = true;
  private userInputAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly model: AudienceTranscript,
    private readonly empty: HTMLElement,
    private readonly jump: HTMLButtonElement,
    private readonly announcer: HTMLElement,
    private readonly show: () => string,
  ) {
    const userInput = () => {
      this.userInputAt = performance.now();
    };
    for (const type of ['wheel', 'touchstart', 'touchmove', 'pointerdown'])
      addEventListener(type, userInput, { passive: true });
    addEventListener('keydown', (event) => {
      if (SCROLL_KEYS.has(event.key)) userInput();
    });
    addEventListener(
      'scroll',
      () => {
        if (this.atLive()) this.follow(true);
        else if (performance.now() - this.userInputAt < USER_SCROLL_MS) this.follow(false);
      },
      { passive: true },
    );
    jump.addEventListener('click', () => {
      this.follow(true);
      this.toLive();
    });
  }

  /** One caption changed the model. */
  apply(change: Change): void {
    if (change.kind === 'none') return;
    for (const id of this.model.takeDropped()) {
      this.elements.get(id)?.remove();
      this.elements.delete(id);
    }
    this.renderLine(change.id);
    const shown = this.show();
    if (change.final && change.kind !== 'removed' && (shown === ALL_TRACKS || shown === change.track.key)) {
      this.announce(change.text);
    }
    this.afterChange();
  }

  /** Runs a layout change (text size, settings panel) and stays at the live end if following. */
  keepingLive(change: () => void): void {
    change();
    if (this.following) this.toLive();
  }

  /** Everything again (another track chosen, or what a reload kept). */
  renderAll(): void {
    for (const element of this.elements.values()) element.remove();
    this.elements.clear();
    // In session order after the "no captions yet" line (the jump button and the announcer, in
    // the same landmark, stay after them).
    let anchor: HTMLElement = this.empty;
    for (const line of this.model.lines(this.show())) {
      const element = this.lineElement(line);
      anchor.after(element);
      anchor = element;
    }
    this.afterChange();
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
      // Told apart by colour only beside the original (one language shown reads as plain text).
      if (part.track.translation && several) span.classList.add('translation');
      const lang = langAttribute(part.track.ln);
      if (lang) span.lang = lang;
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

  /** Follows the live end, or offers the jump when the reader scrolled back. */
  private afterChange(): void {
    this.empty.hidden = this.elements.size > 0;
    if (this.following) this.toLive();
    else this.jump.hidden = false;
  }

  private follow(following: boolean): void {
    this.following = following;
    document.body.dataset.following = String(following);
    if (following) this.jump.hidden = true;
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
