/// <reference lib="dom" />
/**
 * The editor's relay side: a reader of the source room and a publisher to the output room, for
 * the form's address, rooms and tokens (resumed from what the tab kept after a reload: the source
 * room's cursor, the publisher's identity and its unacknowledged captions); the ids of the
 * operator's own captions; and the overlay link of the output room.
 */

import { randomId } from '@live-captions/capture';
import type { RelayCaption, RelayCursor, RelayPublish } from '@live-captions/protocol';
import { type CaptionInput, type RelayPublisher, RelayReader } from '@live-captions/relay-client';
import { copyText, setStatus } from '../lib/dom.js';
import { overlayLink } from '../lib/links.js';
import { isRelayUrl } from '../lib/params.js';
import { publisherWithStatus, relayLine } from '../lib/relay-status.js';
import { changed } from './editor-changes.js';
import { overlayDisplayQuery, ui } from './editor-form.js';

const outputPrefix = randomId('ed').slice(3, 11);
let outputCount = 0;
let reader: RelayReader | undefined;
let publisher: RelayPublisher | undefined;

/** A new id for a caption of the operator's own (`<page prefix>-<n>`; reviewed ones keep their source id). */
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

/** Where the source room is read from, and what the output room had not acknowledged (a reload). */
export interface Resume {
  cursor?: RelayCursor;
  unacked?: readonly RelayPublish[];
  /** Called once, when the source room first joins. */
  onJoined?: () => void;
}

/** What the tab keeps of the relay side. */
export function relayState(): { cursor?: RelayCursor; unacked: RelayPublish[] } {
  return {
    ...(reader?.cursor ? { cursor: reader.cursor } : {}),
    unacked: [...(publisher?.unacked ?? [])],
  };
}

/** The rooms of the form, as the tab keeps them apart (`<source>><output>`). */
export function roomsOfForm(): string {
  return `${ui.sourceRoom.value.trim()}>${ui.outputRoom.value.trim()}`;
}

/** (Re)connects both rooms with the form's settings, or says what is missing. */
export function connect(
  onSourceCaption: (caption: RelayCaption) => void,
  onSourceGap: (kind: string) => void,
  resume: Resume = {},
): boolean {
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
    return false;
  }
  setStatus(ui.settingsStatus, '', 'idle');
  const sourceLine = relayLine(ui.sourceStatus, 'Source');
  let onJoined = resume.onJoined;
  reader = new RelayReader({
    url,
    room: sourceRoom,
    token: ui.sourceToken.value.trim(),
    ...(resume.cursor ? { cursor: resume.cursor } : {}),
    onCaption: onSourceCaption,
    onState: (event) => {
      sourceLine.event(event);
      if (event.state === 'joined' && onJoined) {
        onJoined();
        onJoined = undefined;
      }
    },
    onGap: ({ gap }) => onSourceGap(gap),
  });
  publisher = publisherWithStatus(
    { url, room: outputRoom, token: ui.outputToken.value.trim() },
    ui.outputStatus,
    'Output',
    changed,
  );
  // Sent again as they were: the relay takes each at most once (same delivery identity).
  for (const { msg: _msg, delivery, ...caption } of resume.unacked ?? [])
    publisher.publish(caption, delivery);
  return true;
}

/**
 * Reads the output room's history once (a reload), handing each caption to `onCaption`, for
 * `forMs` after it joined; needs the output read token (the hub's editor link carries it).
 * Returns false without it.
 */
export function readOutputHistory(onCaption: (caption: RelayCaption) => void, forMs: number): boolean {
  const url = ui.relayUrl.value.trim();
  const token = ui.overlayToken.value.trim();
  if (!token || !isRelayUrl(url)) return false;
  let closing = false;
  const history = new RelayReader({
    url,
    room: ui.outputRoom.value.trim(),
    token,
    // No epoch: the relay replays all it holds.
    cursor: { epoch: '', sequence: 0 },
    onCaption,
    onState: ({ state }) => {
      if (state === 'joined' && !closing) {
        closing = true;
        setTimeout(() => history.close(), forMs);
      }
      // A refused token: nothing to learn from this room.
      if (state === 'stopped') history.close();
    },
  });
  return true;
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
