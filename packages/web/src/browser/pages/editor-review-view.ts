/// <reference lib="dom" />
/**
 * What the editor shows of its review: the waiting list, the status line (ages, countdown, what
 * Enter does), the "Sent" list, and the mark on a caption a guard trimmed. The review
 * (`editor-review.ts`) decides; this only draws from its state.
 */
import { dueAt, type ReviewDesk, type ReviewItem } from '../lib/review-queue.js';
import { delayMs, mode, ui } from './editor-form.js';

/** Captions the "Sent" list shows (the newest first). */
export const SENT_SHOWN = 12;

const TRIMMED_NOTE = 'a guard trimmed this caption (hallucination or loop): check it';

/** Shows (or updates, for a correction) a caption in the "Sent" list; empty text removes it. */
export function showSent(outputId: string, text: string): void {
  const existing = Array.from(ui.sent.children).find(
    (element) => (element as HTMLElement).dataset.id === outputId,
  ) as HTMLElement | undefined;
  if (existing) {
    if (text) existing.textContent = text;
    else existing.remove();
    return;
  }
  if (!text) return;
  const element = document.createElement('li');
  element.dataset.id = outputId;
  element.textContent = text;
  ui.sent.prepend(element);
  while (ui.sent.children.length > SENT_SHOWN) ui.sent.lastElementChild?.remove();
}

/** Marks an element whose caption a guard trimmed (data-trimmed, styled by the page; a tooltip). */
export function markTrimmed(element: HTMLElement, item: { trimmed?: boolean } | undefined): void {
  if (item?.trimmed) {
    element.dataset.trimmed = 'true';
    element.title = TRIMMED_NOTE;
  } else {
    delete element.dataset.trimmed;
    element.removeAttribute('title');
  }
}

/** The waiting list; it changes only on arrival and advance, so the clock tick leaves it alone. */
export function renderQueue<Item extends ReviewItem>(desk: ReviewDesk<Item>): void {
  ui.queueCount.textContent = String(desk.queue.length);
  ui.queue.replaceChildren(
    ...desk.queue.all.slice(0, 20).map((item) => {
      const li = document.createElement('li');
      li.textContent = item.text;
      markTrimmed(li, item);
      return li;
    }),
  );
}

/**
 * The ages and the countdown, which move with the clock. `lastReviewDelayMs`: how long the last
 * review took; `onScreen`: a live caption in the draft may still be corrected.
 */
export function renderInfo<Item extends ReviewItem>(
  desk: ReviewDesk<Item>,
  lastReviewDelayMs: number | undefined,
  onScreen: boolean,
): void {
  const now = Date.now();
  const { queue, current } = desk;
  const parts = [
    queue.length ? `${queue.length} waiting, oldest ${(queue.age(now) / 1000).toFixed(1)} s` : 'Queue empty',
  ];
  if (current) parts.push(`this one ${((now - current.receivedAt) / 1000).toFixed(1)} s old`);
  if (current?.trimmed) parts.push(TRIMMED_NOTE);
  if (lastReviewDelayMs !== undefined)
    parts.push(`last review took ${(lastReviewDelayMs / 1000).toFixed(1)} s`);
  if (current && mode() === 'timed')
    parts.push(`sending in ${Math.max(0, Math.ceil((dueAt(current, delayMs()) - now) / 1000))} s`);
  if (onScreen) parts.push('on screen: Enter sends a correction');
  if (queue.dropped) parts.push(`${queue.dropped} dropped (queue full)`);
  const text = `${parts.join(' · ')}.`;
  // Rewritten only when it changes: it is a status line that screen readers announce.
  if (ui.info.textContent !== text) ui.info.textContent = text;
}
