/// <reference lib="dom" />
/**
 * The editor's journal in its tab (editor-journal.ts says what is kept and why): saved when
 * something changed (at most every 0.3 s, and at once when the page goes away), and taken back on
 * the next load of the same rooms: the Sent list and the exports at once; the caption under review
 * and those waiting as the source room is read again from the kept floor (the relay's history);
 * what the output room already holds, by id, leaves the review; the unacknowledged captions are
 * sent again by the publisher. The settings line says what came back.
 */
import type { RelayCaption } from '@live-captions/protocol';
import { setStatus } from '../lib/dom.js';
import {
  type EditorJournal,
  floorOf,
  JOURNAL_VERSION,
  KEPT_SENT,
  parseJournal,
  type Restored,
  restoredLine,
  sourceKey,
} from '../lib/editor-journal.js';
import { TabKeep } from '../lib/tab-keep.js';
import { changes } from './editor-changes.js';
import { sentLog } from './editor-export.js';
import { ui } from './editor-form.js';
import { type Resume, readOutputHistory, relayState, roomsOfForm } from './editor-relay.js';
import { alreadySent, expectBack, reviewState } from './editor-review.js';
import { SENT_SHOWN, showSent } from './editor-review-view.js';

/** How long the output room's history is read after a reload (its replay takes milliseconds). */
const OUTPUT_CHECK_MS = 3000;
/** After the source room joined, this long for the kept captions to come back before the rest count as missing. */
const BACK_WITHIN_MS = 3000;
/**
 * How long the "Restored after a reload" line stays after its last change: news while the
 * operator looks back at the page, stale once the event has gone on (a warning twice as long).
 */
const RESTORED_NEWS_MS = 30_000;
let newsTimer: ReturnType<typeof setTimeout> | undefined;

// A change since the page's last tick (a caption that arrived just before a reload) is kept too:
// these run before the keep's own listeners (registered when it is made, below), which write it.
addEventListener('pagehide', () => keepJournal());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') keepJournal();
});
const keep = new TabKeep<EditorJournal>('live-captions.editor', 300);
let savedChanges = -1;

function journal(): EditorJournal {
  const review = reviewState();
  const relay = relayState();
  const floor = floorOf(review.pending, relay.cursor);
  return {
    v: JOURNAL_VERSION,
    rooms: roomsOfForm(),
    savedAt: Date.now(),
    ...(floor ? { floor } : {}),
    pending: review.pending.map((item) => item.key),
    ...(review.draft ? { draft: review.draft } : {}),
    sent: sentLog.kept(KEPT_SENT),
    unacked: relay.unacked,
  };
}

/** Saves the journal when something changed since the last save (the page's clock calls it). */
export function keepJournal(): void {
  const count = changes();
  if (count === savedChanges) return;
  savedChanges = count;
  keep.save(journal);
}

/** Where the relay side resumes after a reload, and the settings line's news of what came back. */
export interface Restoring extends Resume {
  /**
   * Says on the settings line what came back (updated as the captions do). Called once the relay
   * side is connected: connecting clears that line.
   */
  announce?: () => void;
}

/** Takes back what the tab kept for the form's rooms; returns where the relay side resumes. */
export function restoreJournal(): Restoring {
  const kept = parseJournal(keep.load(), roomsOfForm(), Date.now());
  if (!kept) return {};
  sentLog.restore(kept.sent);
  for (const entry of kept.sent.slice(-SENT_SHOWN)) showSent(entry.id, entry.text);
  const restored: Restored = {
    review: 0,
    missing: 0,
    alreadySent: 0,
    sent: kept.sent.length,
    resent: kept.unacked.length,
  };
  const say = () => {
    const line = restoredLine(restored);
    setStatus(ui.settingsStatus, line, restored.missing > 0 ? 'warn' : 'ok');
    document.body.dataset.restored = JSON.stringify(restored);
    clearTimeout(newsTimer);
    newsTimer = setTimeout(
      () => {
        // Only this line goes: a later message on the settings line is news of its own.
        if (ui.settingsStatus.textContent === line) setStatus(ui.settingsStatus, '', 'idle');
      },
      restored.missing > 0 ? 2 * RESTORED_NEWS_MS : RESTORED_NEWS_MS,
    );
  };
  const expected = new Set(kept.pending);
  /** Finals the output room holds (their keys: a reviewed caption keeps its source id and track). */
  const inOutput = new Map<string, RelayCaption>();
  expectBack(kept.draft, (item) => {
    const expecting = expected.delete(item.key);
    const out = inOutput.get(item.key);
    if (out) {
      // It went out just before the reload: in the Sent list, not back in review.
      if (!sentLog.has(String(out.id)) && out.final) {
        sentLog.record(String(out.id), out.final, Date.now());
        showSent(String(out.id), out.final);
      }
      if (expecting) restored.alreadySent += 1;
      say();
      return 'sent';
    }
    if (expecting) {
      restored.review += 1;
      say();
    }
    return 'review';
  });
  readOutputHistory((caption) => {
    if (caption.final === undefined || !caption.final.trim()) return;
    inOutput.set(sourceKey(caption), caption);
    if (alreadySent(caption)) {
      restored.review = Math.max(0, restored.review - 1);
      restored.alreadySent += 1;
      say();
    }
  }, OUTPUT_CHECK_MS);
  return {
    ...(kept.floor ? { cursor: kept.floor } : {}),
    unacked: kept.unacked,
    announce: say,
    onJoined: () =>
      setTimeout(() => {
        restored.missing = expected.size;
        expected.clear();
        if (restored.missing > 0) say();
      }, BACK_WITHIN_MS),
  };
}
