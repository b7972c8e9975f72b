/// <reference lib="dom" />
/**
 * The editor's relay side: a reader of the source room and a publisher to the output room, for
 * the form's address, rooms and tokens; the output captions' ids; and the overlay link of the
 * output room.
 */
import type { RelayCaption } from '@live-captions/protocol';
import { type CaptionInput, type RelayPublisher, RelayReader } from '@live-captions/relay-client';
import { randomId } from '../lib/capture-session.js';
import { copyText, setStatus } from '../lib/dom.js';
import { overlayLink } from '../lib/links.js';
import { isRelayUrl } from '../lib/params.js';
import { publisherWithStatus, showRelayState } from '../lib/relay-status.js';
import { overlayDisplayQuery, ui } from './editor-form.js';

const outputPrefix = randomId('ed').slice(3, 11);
let outputCount = 0;
let reader: RelayReader | undefined;
let publisher: RelayPublisher | undefined;

/** A new output caption's id (`<page prefix>-<n>`). */
export function nextOutputId(): string {
  outputCount += 1;
  return `${outputPrefix}-${outputCount}`;
}

/** Publishes to the output room, or says on the output status line why it could not. */
export function output(caption: CaptionInput): void {
  if (!publisher) {
    setStatus(ui.outputStatus, 'Output: not connected; caption not sent', 'error');
    return;
  }
  if (!publisher.publish(caption))
    setStatus(ui.outputStatus, 'Output: 100 captions unsent; check the relay', 'error');
}

/** Captions published but not yet taken by the relay. */
export function unsentOutput(): number {
  return publisher?.queued ?? 0;
}

/** Says on the settings line that captions may be missing (only after a real gap). */
export function warnGap(message: string): void {
  setStatus(ui.settingsStatus, message, 'warn');
}

/** (Re)connects both rooms with the form's settings, or says what is missing. */
export function connect(
  onSourceCaption: (caption: RelayCaption) => void,
  onSourceGap: (kind: string) => void,
): void {
  reader?.close();
  publisher?.close();
  reader = publisher = undefined;
  const url = ui.relayUrl.value.trim();
  const sourceRoom = ui.sourceRoom.value.trim();
  const outputRoom = ui.outputRoom.value.trim();
  const problems: string[] = [];
  if (!isRelayUrl(url)) problems.push('a ws:// or wss:// relay address');
  if (!sourceRoom || !ui.sourceToken.value.trim()) problems.push('the source room and its read token');
  if (!outputRoom || !ui.outputToken.value.trim()) problems.push('the output room and its write token');
  if (sourceRoom && sourceRoom === outputRoom) problems.push('an output room different from the source room');
  if (problems.length) {
    setStatus(ui.settingsStatus, `Needs ${problems.join(', ')}.`, 'warn');
    return;
  }
  setStatus(ui.settingsStatus, '', 'idle');
  reader = new RelayReader({
    url,
    room: sourceRoom,
    token: ui.sourceToken.value.trim(),
    onCaption: onSourceCaption,
    onState: (event) => showRelayState(ui.sourceStatus, 'Source', event),
    onGap: ({ gap }) => onSourceGap(gap),
  });
  publisher = publisherWithStatus(
    { url, room: outputRoom, token: ui.outputToken.value.trim() },
    ui.outputStatus,
    'Output',
  );
}

/** Copies the overlay link of the output room (it needs the output read token). */
export async function copyOverlayLink(): Promise<void> {
  const token = ui.overlayToken.value.trim();
  if (!token || !isRelayUrl(ui.relayUrl.value.trim())) {
    setStatus(ui.settingsStatus, 'The overlay link needs the output read token.', 'warn');
    return;
  }
  const link = overlayLink(
    new URL('./', location.href).href,
    overlayDisplayQuery(),
    ui.relayUrl.value.trim(),
    ui.outputRoom.value.trim(),
    token,
  );
  const copied = await copyText(link);
  setStatus(
    ui.settingsStatus,
    copied ? 'Overlay link copied.' : 'Copying failed; allow clipboard access.',
    copied ? 'ok' : 'warn',
  );
}
