/// <reference lib="dom" />
/**
 * Editor: reads the source room, queues its captions for review (FIFO, 100) and publishes the
 * reviewed text to the output room. Modes: live (each caption sent as it arrives, corrections
 * replace it on screen), timed (each sent a delay after its arrival unless the operator sends or
 * skips first), manual. This module wires the page; the form, the relay and the review have
 * modules of their own.
 */
import { wireExports } from './editor-export.js';
import { modeInputs, restore, save, ui } from './editor-form.js';
import { keepJournal, restoreJournal } from './editor-keep.js';
import { startOutputsPanel } from './editor-outputs.js';
import { connect, copyOverlayLink, nextOutputId, output, unsentOutput } from './editor-relay.js';
import {
  draftEdited,
  modeChanged,
  onSourceCaption,
  onSourceGap,
  render,
  reviewPending,
  send,
  skip,
  tick,
} from './editor-review.js';

/** Tick of timed mode's countdowns: fine enough for captions to leave within 0.1 s of their time. */
const TICK_MS = 100;

function clearOverlay(): void {
  output({ final: '', id: nextOutputId(), c: true });
}

restore();
// What the tab kept before a reload comes back; the source room resumes from where review stood.
// The settings line says so once connected (connecting clears it: said before, it never showed).
const resume = restoreJournal();
connect(onSourceCaption, onSourceGap, resume);
resume.announce?.();
render();
setInterval(() => {
  tick();
  keepJournal();
}, TICK_MS);
startOutputsPanel();

ui.draft.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
// Shortcuts announced beside the buttons (aria-keyshortcuts): Esc skips, Alt+X clears the overlay.
document.addEventListener('keydown', (event) => {
  if (event.isComposing || event.ctrlKey || event.metaKey) return;
  if (event.key === 'Escape' && !event.altKey && !event.shiftKey) {
    event.preventDefault();
    skip();
  } else if (event.code === 'KeyX' && event.altKey && !event.shiftKey) {
    event.preventDefault();
    clearOverlay();
  }
});
ui.draft.addEventListener('input', draftEdited);
ui.send.addEventListener('click', send);
ui.skip.addEventListener('click', skip);
ui.clearOverlay.addEventListener('click', clearOverlay);
for (const element of [...modeInputs, ui.delay]) {
  element.addEventListener('change', () => {
    save();
    modeChanged();
  });
}
ui.settings.addEventListener('submit', (event) => {
  event.preventDefault();
  save();
  connect(onSourceCaption, onSourceGap);
});
ui.copyOverlay.addEventListener('click', copyOverlayLink);
wireExports();
window.addEventListener('beforeunload', (event) => {
  if (reviewPending() || unsentOutput() > 0) event.preventDefault();
});
