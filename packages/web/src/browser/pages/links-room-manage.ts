/// <reference lib="dom" />
/**
 * A board row's Manage menu: one button ("Manage Main hall") opening what is done to a room now
 * and then: Rename (in place, in the row), New tokens and Remove (both after a confirmation), or
 * for a room of the relay's file where it is changed. One button rather than three, so that the
 * row's width goes to what is read all day (the room's status, its schedule and talk), and the
 * two actions that break links are a step away from a stray click. A disclosure: Escape closes it
 * with the focus back on its button; a click or the focus elsewhere closes it.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import { element } from '../lib/dom.js';

export interface ManageActions {
  rename(): void;
  rotate(): void;
  remove(): void;
}

export interface ManageMenu {
  cell: HTMLTableCellElement;
  /** The room's items, rebuilt only when its name or kind changes (a pressed button stays). */
  show(room: CaptionRoom): void;
  /** The focus on the Manage button (after a rename ends). */
  focus(): void;
}

function smallButton(text: string, className = ''): HTMLButtonElement {
  const button = element('button', text, `small ${className}`.trim());
  button.type = 'button';
  return button;
}

export function newManageMenu(actions: ManageActions): ManageMenu {
  const cell = element('td', '', 'room-manage');
  const toggle = smallButton('Manage');
  toggle.setAttribute('aria-expanded', 'false');
  const menu = element('div', '', 'manage-menu');
  menu.hidden = true;
  cell.append(toggle, menu);
  let shown = '';

  const outside = (event: PointerEvent) => {
    if (!cell.contains(event.target as Node)) close(false);
  };
  function close(refocus: boolean): void {
    if (menu.hidden) return;
    menu.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    document.removeEventListener('pointerdown', outside);
    if (refocus) toggle.focus();
  }
  function open(): void {
    menu.hidden = false;
    toggle.setAttribute('aria-expanded', 'true');
    document.addEventListener('pointerdown', outside);
    menu.querySelector<HTMLButtonElement>('button')?.focus();
  }
  toggle.addEventListener('click', () => (menu.hidden ? open() : close(true)));
  cell.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !menu.hidden) {
      event.preventDefault();
      close(true);
    }
  });
  cell.addEventListener('focusout', (event) => {
    if (!cell.contains(event.relatedTarget as Node | null)) close(false);
  });

  /** A menu item: the menu closes first, so that a confirmation or a rename has the screen. */
  function item(text: string, label: string, run: () => void, className = ''): HTMLButtonElement {
    const button = smallButton(text, className);
    button.setAttribute('aria-label', label);
    button.addEventListener('click', () => {
      close(false);
      run();
    });
    return button;
  }

  return {
    cell,
    show(room) {
      const key = `${room.kind}\n${room.name}`;
      if (key === shown) return;
      shown = key;
      const id = `manage-${room.id}`;
      menu.id = id;
      toggle.setAttribute('aria-controls', id);
      toggle.setAttribute('aria-label', `Manage ${room.name}`);
      menu.replaceChildren(
        ...(room.kind === 'file'
          ? [
              element(
                'p',
                'Defined in relay.private.json: renamed, given new tokens or removed there.',
                'hint',
              ),
            ]
          : [
              item('Rename', `Rename ${room.name}`, actions.rename),
              item('New tokens', `New tokens for ${room.name}`, actions.rotate),
              item('Remove', `Remove ${room.name}`, actions.remove, 'danger'),
            ]),
      );
    },
    focus: () => toggle.focus(),
  };
}
