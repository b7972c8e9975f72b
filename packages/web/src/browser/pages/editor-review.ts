/// <reference lib="dom" />
/**
 * The editor's review: the source captions queued (FIFO, 100), the one under review in the draft,
 * and what each mode publishes: timed sends every caption when its own countdown (from its
 * arrival) ends, unless the operator sends or skips it first; live sends each caption as it
 * arrives and puts it in the draft, where a correction replaces it on screen (same id); manual
 * waits for the operator. Text over the relay's limit goes out in pieces.
 *
 * A reviewed caption goes out under its source caption's own id (`outputIdOf`): the output room
 * then says which source captions went out, which is how a reload finds what is still to review,
 * and a caption sent twice replaces itself on every reader. A source caption seen before (the
 * same id and track, replayed after a relay restart or resent by a capture page) is not reviewed
 * again. What the page shows of it is drawn by `editor-review-view.ts`.
 */
import type { RelayCaption, RelayCursor } from '@live-captions/protocol';
import type { CaptionInput } from '@live-captions/relay-client';
import { captionPieces } from '../lib/caption-pieces.js';
import { outputIdOf, sourceKey } from '../lib/editor-journal.js';
import { GapWatch } from '../lib/gap-watch.js';
import { ReviewDesk, type ReviewItem } from '../lib/review-queue.js';
import { changed } from './editor-changes.js';
import { sentLog } from './editor-export.js';
import { delayMs, mode, ui } from './editor-form.js';
import { nextOutputId, output, warnGap } from './editor-relay.js';
import { markTrimmed, renderQueue, renderInfo as showInfo, showSent } from './editor-review-view.js';

/** Source captions remembered as seen (reviewed, skipped or waiting), to drop repeats. */
const SEEN_LIMIT = 2000;

type Meta = Pick<CaptionInput, 'label' | 'ln'>;
/** A caption on the overlay that the draft may still correct (live mode). */
interface OnScreen {
  outputId: string;
  meta: Meta;
}
/** A source caption under review or waiting: its identity and position in the source room. */
export interface SourceItem extends ReviewItem {
  key: string;
  relay?: RelayCursor;
}

const desk = new ReviewDesk<SourceItem>();
const gaps = new GapWatch();
const seen = new Set<string>();
let onScreen: OnScreen | undefined;
/** The operator typed in the draft since it was last filled by the page. */
let draftDirty = false;
let lastReviewDelayMs: number | undefined;
/** An earlier load's edit of a caption under review, put back when that caption comes back. */
let keptDraft: { key: string; text: string } | undefined;
/**
 * After a reload (editor-keep.ts): told of each source caption before it is reviewed, says
 * whether it already went out (the output room has it) or is for review.
 */
let onBack: ((item: SourceItem) => 'sent' | 'review') | undefined;

/** Captions not reviewed yet (the page warns before leaving). */
export function reviewPending(): boolean {
  return desk.queue.length > 0 || desk.current !== undefined;
}

/** What the tab keeps of the review: the pending captions in order, and the draft's edit. */
export function reviewState(): { pending: SourceItem[]; draft?: { key: string; text: string } } {
  const current = desk.current;
  return {
    pending: desk.pending,
    ...(current && draftDirty && ui.draft.value.trim()
      ? { draft: { key: current.key, text: ui.draft.value } }
      : {}),
  };
}

/** A reload: `back` sorts the captions that come back; the one the draft's edit was for gets it back. */
export function expectBack(
  draft: { key: string; text: string } | undefined,
  back: (item: SourceItem) => 'sent' | 'review',
): void {
  keptDraft = draft;
  onBack = back;
}

/**
 * The output room already has this caption (it went out just before a reload): it leaves the
 * review, and the Sent list has it. Returns whether it was waiting here.
 */
export function alreadySent(caption: RelayCaption): boolean {
  if (caption.final === undefined) return false;
  const match = desk.pending.find(
    (item) =>
      outputIdOf(item.id) === String(caption.id) &&
      (item.label ?? '') === (caption.label ?? '') &&
      (item.ln ?? '') === (caption.ln ?? ''),
  );
  if (!match) return false;
  if (!sentLog.has(String(caption.id)) && caption.final.trim()) {
    sentLog.record(String(caption.id), caption.final, Date.now());
    showSent(String(caption.id), caption.final);
  }
  if (desk.current === match) loadNext();
  else desk.queue.remove(match);
  changed();
  render();
  return true;
}

function meta(item: { label?: string; ln?: string }): Meta {
  return { ...(item.label ? { label: item.label } : {}), ...(item.ln ? { ln: item.ln } : {}) };
}

function fillDraft(text: string, review?: 'caption' | 'on-screen', item?: SourceItem): void {
  // An edit kept by the tab before a reload goes back into its caption's draft.
  const edit = item && keptDraft?.key === item.key ? keptDraft.text : undefined;
  if (edit !== undefined) keptDraft = undefined;
  ui.draft.value = edit ?? text;
  draftDirty = edit !== undefined;
  markTrimmed(ui.draft, item);
  if (review) ui.draft.dataset.review = review;
  else delete ui.draft.dataset.review;
}

/** The next waiting caption into the draft (or an empty draft). */
function loadNext(): void {
  const item = desk.advance();
  onScreen = undefined;
  fillDraft(item?.text ?? '', item ? 'caption' : undefined, item);
  changed();
  render();
}

/**
 * Publishes `text` as final captions: the first piece under `outputId` (a correction replaces
 * what that id showed), further pieces under the ids `more` gives (`<id>~2`, `<id>~3`… for a
 * source caption). Returns the id of the last piece.
 */
function publish(
  text: string,
  outputId: string,
  captionMeta: Meta,
  more: (piece: number) => string = () => nextOutputId(),
): string {
  let id = outputId;
  captionPieces(text).forEach((piece, index) => {
    if (index > 0) id = more(index + 1);
    output({ final: piece, id, ...captionMeta });
    sentLog.record(id, piece, Date.now());
    showSent(id, piece);
  });
  changed();
  return id;
}

/** A source caption's output ids, piece by piece. */
const sourcePieces = (item: SourceItem) => (piece: number) => outputIdOf(item.id, piece);

/** Sends the draft: the caption under review as edited, a live correction, or the operator's own. */
export function send(): void {
  const text = ui.draft.value.trim();
  const item = desk.current;
  if (item) {
    if (text) publish(text, outputIdOf(item.id), meta(item), sourcePieces(item));
    lastReviewDelayMs = Date.now() - item.receivedAt;
    loadNext();
  } else if (onScreen && text) {
    publish(text, onScreen.outputId, onScreen.meta);
    onScreen = undefined;
    fillDraft('');
  } else if (text) {
    publish(text, nextOutputId(), {});
    fillDraft('');
  }
}

/** Skips the caption under review; in live mode, takes the caption in the draft off the screen. */
export function skip(): void {
  const item = desk.current;
  if (item) {
    lastReviewDelayMs = Date.now() - item.receivedAt;
    loadNext();
  } else if (onScreen) {
    output({ final: '', id: onScreen.outputId, ...onScreen.meta });
    sentLog.record(onScreen.outputId, '', Date.now());
    showSent(onScreen.outputId, '');
    onScreen = undefined;
    fillDraft('');
    changed();
  }
}

/** Live mode: the caption goes out now and, unless the operator is typing, into the draft. */
function sendLive(item: SourceItem): void {
  const captionMeta = meta(item);
  const outputId = publish(item.text, outputIdOf(item.id), captionMeta, sourcePieces(item));
  if (draftDirty && ui.draft.value.trim()) return;
  onScreen = { outputId, meta: captionMeta };
  fillDraft(item.text, 'on-screen', item);
}

/** Remembers a source caption as seen (bounded: the oldest are forgotten first). */
function see(key: string): boolean {
  if (seen.has(key)) return false;
  seen.add(key);
  if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value as string);
  return true;
}

/** A caption of the source room: finals are reviewed (once each), the rest ignored. */
export function onSourceCaption(caption: RelayCaption): void {
  if (gaps.caption(caption.id)) warnGap('The relay restarted: captions sent meanwhile may be missing.');
  if (caption.c || caption.final === undefined) return;
  const text = caption.final.trim();
  if (!text) return;
  const key = sourceKey(caption);
  if (!see(key)) return;
  const item: SourceItem = {
    id: caption.id,
    key,
    relay: caption.relay,
    text,
    receivedAt: Date.now(),
    ...meta(caption),
    ...(caption.trimmed ? { trimmed: true } : {}),
  };
  if (onBack?.(item) === 'sent') return;
  changed();
  if (mode() === 'live') {
    sendLive(item);
    return;
  }
  // A draft the operator is typing without a caption is never replaced.
  const free = !desk.current && !(draftDirty && ui.draft.value.trim());
  desk.arrive(item, free);
  if (desk.current === item) {
    onScreen = undefined;
    fillDraft(item.text, 'caption', item);
  }
  render();
}

/** The reader reported a gap: said at once when certain, else after the next captions show one. */
export function onSourceGap(kind: string): void {
  if (gaps.gap(kind)) warnGap('Some captions expired before they arrived.');
}

/** The operator edited the draft: in timed mode the caption's countdown restarts from the edit. */
export function draftEdited(): void {
  draftDirty = true;
  if (desk.current) desk.current.editedAt = Date.now();
  changed();
}

/** The mode or the delay changed; switching to live sends what was waiting. */
export function modeChanged(): void {
  if (mode() === 'live') {
    while (desk.current) send();
  }
  renderInfo();
}

export function render(): void {
  renderQueue(desk);
  renderInfo();
}

/** The status line, which moves with the clock. */
function renderInfo(): void {
  showInfo(desk, lastReviewDelayMs, onScreen !== undefined);
}

/** The clock (every 100 ms): in timed mode every caption whose countdown ended goes out. */
export function tick(): void {
  if (mode() === 'timed') {
    const sent = desk.releaseDue(Date.now(), delayMs(), () => send());
    if (sent) render();
  }
  renderInfo();
}
