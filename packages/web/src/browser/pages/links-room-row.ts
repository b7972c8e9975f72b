/// <reference lib="dom" />
/**
 * One row of the links hub's rooms board: the room's name, id and kind, its status at a glance
 * (links-room-status.ts), its four links (each
 * opening its page in a new tab, with only that page's tokens), its QR code and "Use", and for a
 * room made through the API Rename (in place), New tokens and Remove. Rows are updated in place by
 * each refresh, so that a poll never moves a control being used or ends a rename being typed.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import { element } from '../lib/dom.js';
import type { RoomLinks } from '../lib/room-links.js';
import type { RoomStatus } from '../lib/room-status.js';
import { newStatusCell } from './links-room-status.js';

export interface RowActions {
  rename(room: CaptionRoom, name: string): Promise<boolean>;
  rotate(room: CaptionRoom): void;
  remove(room: CaptionRoom): void;
  qr(room: CaptionRoom, link: string): void;
  use(room: CaptionRoom): void;
}

export interface RoomRow {
  item: HTMLTableRowElement;
  update(room: CaptionRoom, links: RoomLinks): void;
  /** The room's status at a glance (links-board-status.ts). */
  status(status: RoomStatus | undefined): void;
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
  const manage = element('td', '', 'room-manage');
  const status = newStatusCell(item);
  item.append(head, status.cell, open, manage);

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
      manage.querySelector<HTMLButtonElement>('button')?.focus();
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

  function manageButtons(): HTMLElement[] {
    if (room.kind === 'file') return [element('span', 'Defined in relay.private.json', 'hint')];
    const rename = smallButton('Rename');
    rename.setAttribute('aria-label', `Rename ${room.name}`);
    rename.addEventListener('click', startRename);
    const rotate = smallButton('New tokens');
    rotate.setAttribute('aria-label', `New tokens for ${room.name}`);
    rotate.addEventListener('click', () => actions.rotate(room));
    const remove = smallButton('Remove', 'danger');
    remove.setAttribute('aria-label', `Remove ${room.name}`);
    remove.addEventListener('click', () => actions.remove(room));
    return [rename, rotate, remove];
  }

  let shownKind: string | undefined;
  let shownName: string | undefined;
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
    // Only rebuilt when what they name changes: a button being pressed stays the same node.
    if (shownKind !== room.kind || shownName !== room.name) {
      shownKind = room.kind;
      shownName = room.name;
      manage.replaceChildren(...manageButtons());
    }
  }

  return {
    item,
    update(next, nextLinks) {
      room = next;
      links = nextLinks;
      show();
    },
    status: status.show,
  };
}
