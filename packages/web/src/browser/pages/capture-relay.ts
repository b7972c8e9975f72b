/// <reference lib="dom" />
/**
 * The capture page's caption relay: the publisher for the form's address, room and write token
 * (finals go to the source room), and the form filled from the speech service's relay settings.
 */
import type { RelaySettings } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client';
import { setStatus } from '../lib/dom.js';
import { isRelayUrl } from '../lib/params.js';
import { publisherWithStatus } from '../lib/relay-status.js';
import { sharedRoomWarning } from '../lib/room-writers.js';
import { ui } from './capture-form.js';

/** A publisher for the relay settings of the form, or none (off, or incomplete: said why). */
export function relayPublisher(): RelayPublisher | undefined {
  const url = ui.relayUrl.value.trim();
  const room = ui.relayRoom.value.trim();
  const token = ui.relayToken.value.trim();
  showShared(1, room);
  if (!url && !room && !token) {
    setStatus(ui.relayStatus, 'Relay: off (captions stay on this page)', 'idle');
    return undefined;
  }
  if (!isRelayUrl(url) || !room || !token) {
    setStatus(ui.relayStatus, 'Relay: needs a ws:// or wss:// address, a room and a write token', 'warn');
    return undefined;
  }
  return publisherWithStatus(
    { url, room, token, onWriters: (writers) => showShared(writers, room) },
    ui.relayStatus,
    'Relay',
  );
}

/** In the header while another publisher writes into this page's room (the relay says so). */
function showShared(writers: number, room: string): void {
  const warning = sharedRoomWarning(writers, room);
  // Rewritten only when it changes: a status line is announced by screen readers.
  if (ui.roomShared.textContent !== (warning ?? '')) ui.roomShared.textContent = warning ?? '';
  ui.roomShared.hidden = warning === undefined;
  document.body.dataset.roomWriters = String(writers);
}

/**
 * Fills the relay settings from the service's `/relay-config`; true when it did. `explicit`: the
 * person asked, so a refusal is explained.
 */
export async function fillRelaySettings(
  configUrl: URL,
  headers: Record<string, string>,
  explicit: boolean,
): Promise<boolean> {
  const response = await fetch(configUrl, { headers }).catch(() => undefined);
  if (!response?.ok) {
    if (explicit) setStatus(ui.relayStatus, fillRefusal(response?.status), 'warn');
    return false;
  }
  const config = (await response.json()) as RelaySettings;
  ui.relayUrl.value = config.relayUrl;
  ui.relayRoom.value = config.sourceRoom;
  ui.relayToken.value = config.sourceWriteToken ?? '';
  return true;
}

/** What to do when the service would not fill the relay settings in: the fix, not just the fault. */
export function fillRefusal(status: number | undefined): string {
  if (status === 401)
    return 'Relay: not filled in: the access token is wrong. Paste the right one (CAPTION_API_KEY) and press Fill in again.';
  if (status === 404) return 'Relay: this speech service has no relay settings: type them below.';
  if (status === undefined) return 'Relay: the speech service did not answer; Fill in again once it is back.';
  return `Relay: not filled in (HTTP ${status}); Fill in again, or type the settings below.`;
}
