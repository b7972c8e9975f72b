/// <reference lib="dom" />
/**
 * One row of the links hub's rooms board: the room's name, id and kind, its status at a glance
 * (links-room-status.ts), its schedule and talk (links-room-schedule.ts: it opens the room's
 * Schedule dialog, links-schedule.ts), its four links (each opening its page in a new tab, with
 * only that page's tokens), its QR code and "Use", and its Manage menu (links-room-manage.ts): for
 * a room made through the API Rename (in place), New tokens and Remove. Rows are updated in place by
 * each refresh, so that a poll never moves a control being used or ends a rename being typed.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import { element } from '../lib/dom.js';
import type { RoomLinks } from '../lib/room-links.js';
import type { RoomStatus } from '../lib/room-status.js';
import { newManageMenu } from './links-room-manage.js';
import { newScheduleCell, type ScheduleCell } from './links-room-schedule.js';
import { newStatusCell } from './links-room-status.js';

export interface RowActions {
  rename(room: CaptionRoom, name: string): Promise<boolean>;
  rotate(room: CaptionRoom): void;
  remove(room: CaptionRoom): void;
  qr(room: CaptionRoom, link: string): void;
  use(room: CaptionRoom): void;
  /** Opens the room's schedule: the venue it follows, and the hand. */
  schedule(room: CaptionRoom): void;
}

export interface RoomRow {
  item: HTMLTableRowElement;
  update(room: CaptionRoom, links: RoomLinks): void;
  /** The room's status at a glance (links-board-status.ts). */
  status(status: RoomStatus | undefined): void;
  /** The room's schedule and talk lines (links-schedule.ts). */
  schedule: ScheduleCell['show'];
}

const LINKS = [
  ['capture', 'Capture', 'Capture page of'],
  ['editor', 'Editor', 'Editor of'],
  ['overlay', 'Overlay', 'Overlay of'],
  ['audience', 'Audience', 'Audience page of'],
] as const;

function smallButton(text: string, className = ''): HTMLButtonElement {
  const button = element('button', text, `small ${className}`.trim());
  button.type = 'button';
  return button;
}

export function newRoomRow(first: CaptionRoom, actions: RowActions): RoomRow {
  let room = first;
  let links: RoomLinks | undefined;
  const item = element('tr', '', 'room');
  item.dataset.id = room.id;
  const head = element('th');
  head.scope = 'row';
  const name = element('span', '', 'room-name');
  // The id and kind under the name rather than columns of their own: the width goes to the status.
  const id = element('span', '', 'room-id');
  const kind = element('span', '', 'room-kind');
  const about = element('span', '', 'room-about');
  about.append(id, ' · ', kind);
  head.append(name, about);
  const open = element('td', '', 'room-open');
  const anchors = LINKS.map(([key, text]) => {
    const anchor = element('a', text);
    anchor.target = '_blank';
    anchor.rel = 'noopener noreferrer';
    anchor.dataset.link = key;
    return anchor;
  });
  const qr = smallButton('QR');
  const use = smallButton('Use');
  open.append(...anchors, qr, use);
  const status = newStatusCell(item);
  const schedule = newScheduleCell(() => actions.schedule(room));
  const manage = newManageMenu({
    rename: () => startRename(),
    rotate: () => actions.rotate(room),
    remove: () => actions.remove(room),
  });
  item.append(head, status.cell, schedule.cell, open, manage.cell);

  qr.addEventListener('click', () => links && actions.qr(room, links.audience));
  use.addEventListener('click', () => actions.use(room));

  let renaming = false;
  function startRename(): void {
    renaming = true;
    const form = element('form', '', 'rename');
    const input = element('input');
    input.type = 'text';
    input.value = room.name;
    input.maxLength = 80;
    input.required = true;
    input.setAttribute('aria-label', `New name of ${room.name}`);
    const save = element('button', 'Save', 'small primary');
    save.type = 'submit';
    const cancel = smallButton('Cancel');
    const stop = () => {
      renaming = false;
      head.replaceChildren(name, about);
      show();
      manage.focus();
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (await actions.rename(room, input.value.trim())) stop();
    });
    cancel.addEventListener('click', stop);
    form.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') stop();
    });
    form.append(input, save, cancel);
    head.replaceChildren(form, about);
    input.focus();
    input.select();
  }

  function show(): void {
    if (!renaming) name.textContent = room.name;
    id.textContent = room.id;
    kind.textContent = room.kind === 'api' ? 'API' : 'file';
    anchors.forEach((anchor, index) => {
      const [key, , label] = LINKS[index]!;
      const href = links?.[key];
      anchor.hidden = !href;
      if (href && anchor.href !== href) anchor.href = href;
      anchor.setAttribute('aria-label', `${label} ${room.name}`);
    });
    qr.setAttribute('aria-label', `QR code of the audience link of ${room.name}`);
    use.setAttribute('aria-label', `Use ${room.name} in steps 2 to 4`);
    schedule.name(room.name);
    manage.show(room);
  }

  return {
    item,
    update(next, nextLinks) {
      room = next;
      links = nextLinks;
      show();
    },
    status: status.show,
    schedule: schedule.show,
  };
}
