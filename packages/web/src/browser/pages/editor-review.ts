/// <reference lib="dom" />
/**
 * The editor's review: the source captions queued (FIFO, 100), the one under review in the draft,
 * what sending or skipping it publishes in each mode (live: the draft shown as interim while
 * edited; timed: sent when its countdown ends; manual), and the queue, ages and countdown shown.
 */
import type { RelayCaption } from '@live-captions/protocol';
import type { CaptionInput } from '@live-captions/relay-client';
import { type ReviewItem, ReviewQueue } from '../lib/review-queue.js';
import { mode, timedDueAt, ui } from './editor-form.js';
import { nextOutputId, output } from './editor-relay.js';

const SENT_SHOWN = 12;

const queue = new ReviewQueue();
/** The caption under review (undefined: the operator may type a caption of their own). */
let current: (ReviewItem & { outputId: string; interimShown: boolean; dueAt?: number }) | undefined;
let lastReviewDelayMs: number | undefined;

/** Captions not reviewed yet (the page warns before leaving). */
export function reviewPending(): boolean {
  return queue.length > 0 || current !== undefined;
}

function meta(item: { label?: string; ln?: string }): Pick<CaptionInput, 'label' | 'ln'> {
  return { ...(item.label ? { label: item.label } : {}), ...(item.ln ? { ln: item.ln } : {}) };
}

function loadNext(): void {
  const item = queue.shift();
  current = item ? { ...item, outputId: nextOutputId(), interimShown: false } : undefined;
  ui.draft.value = item?.text ?? '';
  markTrimmed(ui.draft, current);
  if (current) {
    ui.draft.dataset.review = 'caption';
    if (mode() === 'timed') current.dueAt = timedDueAt();
    if (mode() === 'live') showInterim();
  } else {
    delete ui.draft.dataset.review;
  }
  render();
}

function showInterim(): void {
  if (!current) return;
  const text = ui.draft.value.trim();
  output({ interm: text, id: current.outputId, ...meta(current) });
  current.interimShown = true;
}

/** Sends the draft: the caption under review as edited, or a caption the operator typed. */
export function send(): void {
  const text = ui.draft.value.trim();
  if (current) {
    if (text || current.interimShown) output({ final: text, id: current.outputId, ...meta(current) });
    lastReviewDelayMs = Date.now() - current.receivedAt;
  } else if (text) {
    output({ final: text, id: nextOutputId() });
  } else {
    return;
  }
  if (text) addSent(text);
  loadNext();
}

export function skip(): void {
  // An interim already on the overlay is withdrawn with an empty final.
  if (current?.interimShown) output({ final: '', id: current.outputId, ...meta(current) });
  if (current) lastReviewDelayMs = Date.now() - current.receivedAt;
  loadNext();
}

function addSent(text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  ui.sent.prepend(item);
  while (ui.sent.children.length > SENT_SHOWN) ui.sent.lastElementChild?.remove();
}

/** A caption of the source room: finals are queued, the rest ignored. */
export function onSourceCaption(caption: RelayCaption): void {
  if (caption.c || caption.final === undefined) return;
  const text = caption.final.trim();
  if (!text) return;
  queue.push({
    id: caption.id,
    text,
    receivedAt: Date.now(),
    ...meta(caption),
    ...(caption.trimmed ? { trimmed: true } : {}),
  });
  // A draft the operator is typing without a caption is never replaced.
  if (!current && !ui.draft.value.trim()) loadNext();
  else render();
}

/** The operator edited the draft. */
export function draftEdited(): void {
  if (!current) return;
  // Editing restarts the timed countdown; in live mode the audience sees the edit.
  if (mode() === 'timed') current.dueAt = timedDueAt();
  if (mode() === 'live') showInterim();
}

/** The mode or the delay changed: the caption under review follows the new one. */
export function modeChanged(): void {
  if (current) current.dueAt = mode() === 'timed' ? timedDueAt() : undefined;
  if (current && mode() === 'live' && !current.interimShown) showInterim();
  renderInfo();
}

export function render(): void {
  renderQueue();
  renderInfo();
}

const TRIMMED_NOTE = 'a guard trimmed this caption (hallucination or loop): check it';

/** Marks an element whose caption a guard trimmed (data-trimmed, styled by the page; a tooltip). */
function markTrimmed(element: HTMLElement, item: { trimmed?: boolean } | undefined): void {
  if (item?.trimmed) {
    element.dataset.trimmed = 'true';
    element.title = TRIMMED_NOTE;
  } else {
    delete element.dataset.trimmed;
    element.removeAttribute('title');
  }
}

/** The waiting list; it changes only on push and shift, so the clock tick leaves it alone. */
function renderQueue(): void {
  ui.queueCount.textContent = String(queue.length);
  ui.queue.replaceChildren(
    ...queue.all.slice(0, 20).map((item) => {
      const li = document.createElement('li');
      li.textContent = item.text;
      markTrimmed(li, item);
      return li;
    }),
  );
}

/** The ages and the countdown, which move with the clock. */
function renderInfo(): void {
  const now = Date.now();
  const parts = [
    queue.length
      ? `${queue.length} waiting, oldest ${((now - queue.all[0]!.receivedAt) / 1000).toFixed(1)} s`
      : 'Queue empty',
  ];
  if (current) parts.push(`this one ${((now - current.receivedAt) / 1000).toFixed(1)} s old`);
  if (current?.trimmed) parts.push(TRIMMED_NOTE);
  if (lastReviewDelayMs !== undefined)
    parts.push(`last review took ${(lastReviewDelayMs / 1000).toFixed(1)} s`);
  if (current?.dueAt !== undefined && mode() === 'timed')
    parts.push(`sending in ${Math.max(0, Math.ceil((current.dueAt - now) / 1000))} s`);
  if (queue.dropped) parts.push(`${queue.dropped} dropped (queue full)`);
  ui.info.textContent = `${parts.join(' · ')}.`;
}

/** The clock (every 250 ms): a timed caption whose countdown ended is sent. */
export function tick(): void {
  if (current?.dueAt !== undefined && mode() === 'timed' && Date.now() >= current.dueAt) send();
  renderInfo();
}
