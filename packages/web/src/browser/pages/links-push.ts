/// <reference lib="dom" />
/**
 * The stream sources panel's "Send the stream here" box: a new push source's address, shown once
 * right after it is created (the service never shows the key whole again), split the way OBS asks
 * for it (lib/push-address.ts), with a warning when it is at localhost.
 */
import { byId } from '../lib/dom.js';
import { pushFields, pushHostProblem } from '../lib/push-address.js';

const box = {
  section: byId('source-push'),
  warning: byId('push-warning'),
  server: byId<HTMLInputElement>('push-server'),
  key: byId<HTMLInputElement>('push-key'),
  keyRow: byId('push-key-row'),
  srtHint: byId('push-srt-hint'),
  url: byId<HTMLInputElement>('push-url'),
  urlRow: byId('push-url-row'),
};

export function showPush(push: { url: string; streamKey: string }): void {
  const fields = pushFields(push);
  box.server.value = fields.server;
  box.key.value = fields.streamKey;
  box.url.value = fields.whole;
  // Where the key is inside the server address, a second field would only repeat it.
  const split = fields.streamKey !== '';
  box.keyRow.hidden = !split;
  box.urlRow.hidden = !split;
  box.srtHint.hidden = split;
  const problem = pushHostProblem(fields.whole);
  box.warning.hidden = !problem;
  box.warning.textContent = problem ?? '';
  box.section.hidden = false;
}

/** Hides the box and forgets the key it showed. */
export function hidePush(): void {
  box.section.hidden = true;
  for (const input of [box.server, box.key, box.url]) input.value = '';
}
