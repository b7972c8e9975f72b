/// <reference lib="dom" />
/**
 * Editor: reads the source room, queues its captions for review (FIFO, 100) and publishes the
 * reviewed text to the output room. Modes: live (the text is shown as interim while edited),
 * timed (sent after a delay unless the operator sends or skips first), manual. This module wires
 * the page; the form, the relay and the review have modules of their own.
 */
import { modeInputs, restore, save, ui } from './editor-form.js';
import { startOutputsPanel } from './editor-outputs.js';
import { connect, copyOverlayLink, nextOutputId, output, unsentOutput } from './editor-relay.js';
import {
  draftEdited,
  modeChanged,
  onSourceCaption,
  render,
  reviewPending,
  send,
  skip,
  tick,
} from './editor-review.js';

restore();
connect(onSourceCaption);
render();
setInterval(tick, 250);
startOutputsPanel();

ui.draft.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
ui.draft.addEventListener('input', draftEdited);
ui.send.addEventListener('click', send);
ui.skip.addEventListener('click', skip);
ui.clearOverlay.addEventListener('click', () => output({ final: '', id: nextOutputId(), c: true }));
for (const element of [...modeInputs, ui.delay]) {
  element.addEventListener('change', () => {
    save();
    modeChanged();
  });
}
ui.settings.addEventListener('submit', (event) => {
  event.preventDefault();
  save();
  connect(onSourceCaption);
});
ui.copyOverlay.addEventListener('click', copyOverlayLink);
window.addEventListener('beforeunload', (event) => {
  if (reviewPending() || unsentOutput() > 0) event.preventDefault();
});
