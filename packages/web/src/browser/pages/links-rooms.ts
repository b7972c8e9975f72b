/// <reference lib="dom" />
/**
 * The links hub's "Caption rooms" board: every caption room of the relay (its `/rooms` API, with
 * the service access token of step 1), each with one click to its capture page, editor, overlay
 * and audience page and the audience link's QR code; a room is created here by its name, and a
 * room made here renamed, given new tokens or removed (those two after a confirmation: old links
 * stop working), and any room bound to a calendar venue or held by hand (links-schedule.ts).
 * Refreshed every few seconds while the page is visible, so that rooms made on another desk
 * appear. Hidden when the site has no relay API address.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import { byId, copyText, element, setStatus, siteConfig } from '../lib/dom.js';
import type { OverlayOptions } from '../lib/links.js';
import { drawQr } from '../lib/qr-canvas.js';
import { roomLinks, shortRoomLink } from '../lib/room-links.js';
import { RoomsClient, roomsProblem } from '../lib/rooms-client.js';
import { startBoardStatus } from './links-board-status.js';
import { newRoomRow, type RoomRow } from './links-room-row.js';
import { startSchedules } from './links-schedule.js';

const REFRESH_MS = 3000;

const panel = {
  section: byId('rooms-panel'),
  list: byId<HTMLTableSectionElement>('rooms'),
  form: byId<HTMLFormElement>('room-form'),
  name: byId<HTMLInputElement>('room-name'),
  status: byId('rooms-status'),
  count: byId('rooms-count'),
  dialog: byId<HTMLDialogElement>('room-qr-dialog'),
  dialogTitle: byId('room-qr-title'),
  qr: byId<HTMLCanvasElement>('room-qr'),
  qrLink: byId<HTMLInputElement>('room-qr-link'),
  qrShort: byId<HTMLInputElement>('room-qr-short'),
};

export interface RoomsPanelInputs {
  /** The service access token (step 1). */
  token(): string;
  /** The capture host's base, or null: no capture links. */
  captureBase(): string | null;
  /** The relay WebSocket address the pages join. */
  relayUrl(): string | null;
  /** The overlay's look (step 3), for every room's overlay and editor links. */
  overlay(): OverlayOptions;
  /** Fills steps 2-4 with this room (its rooms and tokens). */
  use(room: CaptionRoom): void;
}

let inputs: RoomsPanelInputs;
const site = new URL('./', location.href).href;
const rows = new Map<string, RoomRow>();
let rooms: CaptionRoom[] = [];
/** Asks the services for every row's status (set up when the board is shown). */
let status: { refresh(): void } | undefined;
/** Each row's schedule and the Schedule dialog (set up when the board is shown). */
let schedules: ReturnType<typeof startSchedules> | undefined;

function client(): RoomsClient | undefined {
  const baseUrl = siteConfig().relayApiUrl;
  const token = inputs.token();
  return baseUrl && token ? new RoomsClient({ baseUrl, token }) : undefined;
}

/**
 * Runs one request, says how it went in `line` (the board's status, or a dialog's), and shows
 * the list afresh; false when it failed.
 */
async function act(
  done: string,
  request: (c: RoomsClient) => Promise<unknown>,
  line: HTMLElement = panel.status,
): Promise<boolean> {
  const c = client();
  if (!c) return false;
  setStatus(line, 'Working…', 'busy');
  try {
    await request(c);
  } catch (error) {
    setStatus(line, roomsProblem(error, siteConfig().relayApiUrl ?? ''), 'error');
    await refresh(false);
    return false;
  }
  // Said once the list shows it: "New tokens" means the links on the board are the new ones.
  if (await refresh(false)) setStatus(line, done, 'ok');
  return true;
}

const actions = {
  rename: (room: CaptionRoom, name: string) =>
    act(`Renamed ${room.name} to ${name}: its links stay the same`, (c) => c.rename(room.id, name)),
  rotate(room: CaptionRoom) {
    if (
      confirm(
        `New tokens for ${room.name}? Every link of this room made so far stops working (capture, editor, overlay, audience); share the new ones.`,
      )
    )
      void act(`New tokens for ${room.name}: share its new links`, (c) => c.rotate(room.id));
  },
  remove(room: CaptionRoom) {
    if (confirm(`Remove ${room.name}? Its links stop working and its captions are no longer relayed.`))
      void act(`Removed ${room.name}`, (c) => c.remove(room.id));
  },
  qr(room: CaptionRoom, link: string) {
    panel.dialogTitle.textContent = `Audience link of ${room.name}`;
    drawQr(panel.qr, link);
    panel.qr.setAttribute('aria-label', `QR code of the audience link of ${room.name}`);
    panel.qrLink.value = link;
    panel.qrShort.value = shortRoomLink(site, room.id);
    panel.dialog.showModal();
  },
  use: (room: CaptionRoom) => inputs.use(room),
  schedule: (room: CaptionRoom) => schedules?.open(room),
};

/** The rows of `rooms`, in the relay's order, each updated in place. */
function show(): void {
  const relayUrl = inputs.relayUrl();
  const seen = new Set<string>();
  const items: HTMLElement[] = [];
  let added = false;
  for (const room of rooms) {
    seen.add(room.id);
    let row = rows.get(room.id);
    if (!row) {
      row = newRoomRow(room, actions);
      rows.set(room.id, row);
      added = true;
    }
    if (relayUrl) row.update(room, roomLinks(site, inputs.captureBase(), relayUrl, room, inputs.overlay()));
    schedules?.paint(room);
    items.push(row.item);
  }
  for (const id of [...rows.keys()]) if (!seen.has(id)) rows.delete(id);
  if (items.length === 0) {
    const empty = element('tr');
    const cell = element('td', 'No caption rooms yet: create the first one above.', 'hint');
    cell.colSpan = 5;
    empty.append(cell);
    items.push(empty);
  }
  panel.count.textContent = `${rooms.length} room${rooms.length === 1 ? '' : 's'}`;
  // Same nodes in the same order: nothing moves under the pointer.
  const current = Array.from(panel.list.children);
  if (current.length !== items.length || current.some((node, index) => node !== items[index]))
    panel.list.replaceChildren(...items);
  // A new row gets its status now rather than at the next round.
  if (added) status?.refresh();
}

/** Reads the list and shows it; false when the relay could not be read (the status says why). */
async function refresh(sayWhy = true): Promise<boolean> {
  const c = client();
  if (!c) {
    if (sayWhy) setStatus(panel.status, 'Enter the service access token (step 1) to see the rooms.', 'idle');
    rooms = [];
    rows.clear();
    panel.list.replaceChildren();
    panel.count.textContent = '';
    return false;
  }
  try {
    rooms = (await c.list()).rooms;
    show();
    if (sayWhy && panel.status.dataset.tone === 'idle') setStatus(panel.status, '', 'idle');
    return true;
  } catch (error) {
    setStatus(panel.status, roomsProblem(error, siteConfig().relayApiUrl ?? ''), 'error');
    return false;
  }
}

/** Shows the board when the site has the relay's API, and keeps it current while visible. */
export function startRoomsPanel(from: RoomsPanelInputs): { refresh(): void; relink(): void } {
  inputs = from;
  if (!siteConfig().relayApiUrl) return { refresh() {}, relink() {} };
  panel.section.hidden = false;
  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = panel.name.value.trim();
    if (!client()) return void refresh();
    void act(`Created ${name}`, async (c) => {
      await c.create(name);
      panel.name.value = '';
    });
  });
  for (const button of Array.from(panel.dialog.querySelectorAll<HTMLButtonElement>('button[data-copy]')))
    button.addEventListener('click', () => {
      const target = byId<HTMLInputElement>(button.dataset.copy!);
      void copyText(target.value, target);
    });
  byId('room-qr-close').addEventListener('click', () => panel.dialog.close());
  schedules = startSchedules({ rooms: () => rooms, row: (id) => rows.get(id), act });
  status = startBoardStatus({
    addresses() {
      const token = inputs.token();
      if (!token) return undefined;
      const config = siteConfig();
      return {
        token,
        relayApiUrl: config.relayApiUrl,
        sourcesUrl: config.sourcesUrl,
        outputsUrl: config.outputsUrl,
        captureUrl: inputs.captureBase(),
      };
    },
    rooms: () => rooms,
    row: (id) => rows.get(id),
  });
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh(false);
  }, REFRESH_MS);
  return { refresh: () => void refresh(), relink: show };
}
