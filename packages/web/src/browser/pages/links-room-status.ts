/// <reference lib="dom" />
/**
 * A board row's status cell (thin: the words come from lib/room-status.ts): one compact line of
 * the room's source, captions, readers and destinations, and for a room in trouble a second line
 * "Needs attention: …" in words, the row marked for colour too (`data-trouble`), so that colour is
 * never the only sign. Text nodes change only when their words do, so a refresh moves nothing and
 * a screen reader reading the row is not interrupted.
 */
import { element } from '../lib/dom.js';
import { type RoomStatus, troubleLine } from '../lib/room-status.js';

export interface StatusCell {
  cell: HTMLTableCellElement;
  show(status: RoomStatus | undefined): void;
}

function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function newStatusCell(row: HTMLTableRowElement): StatusCell {
  const cell = element('td', '', 'room-status');
  const parts = {
    source: element('span', '', 'status-source'),
    captions: element('span', '', 'status-captions'),
    audience: element('span', '', 'status-audience'),
    outputs: element('span', '', 'status-outputs'),
  };
  const line = element('span', '', 'status-line');
  // Separators in the text itself, so that a screen reader pauses between the parts.
  line.append(parts.source, ' · ', parts.captions, ' · ', parts.audience, ' · ', parts.outputs);
  const trouble = element('strong', '', 'status-trouble');
  trouble.hidden = true;
  cell.append(trouble, line);
  setText(parts.source, 'Status…');
  return {
    cell,
    show(status) {
      if (!status) return;
      setText(parts.source, status.source);
      setText(parts.captions, status.captions);
      setText(parts.audience, status.audience);
      setText(parts.outputs, status.outputs);
      const words = troubleLine(status.trouble);
      setText(trouble, words);
      trouble.hidden = words === '';
      if (words) row.dataset.trouble = 'true';
      else delete row.dataset.trouble;
    },
  };
}
