/// <reference lib="dom" />
/**
 * A board row's schedule cell: what starts the room's sources ("By hand", "Follows venue Janson
 * (lead 5 min, tail 5 min)", a hold), as the button that opens the room's Schedule dialog, and
 * for a bound room its talk now or next; each a line cut to the column with the whole text as its
 * tooltip (a screen reader reads it all). Text nodes change only when their words do, so a
 * refresh is not read out again.
 */
import { element } from '../lib/dom.js';

export interface ScheduleCell {
  cell: HTMLTableCellElement;
  /** The room's name, for the button's accessible name ("Schedule of Main hall: …"). */
  name(room: string): void;
  /** `talk`: the bound room's talk line, or undefined (none); `warn` marks a venue gone. */
  show(line: string, talk: string | undefined, warn?: boolean): void;
}

export function newScheduleCell(open: () => void): ScheduleCell {
  const cell = element('td', '', 'room-schedule');
  const line = element('button', '', 'schedule-line');
  line.type = 'button';
  const talk = element('span', '', 'schedule-talk');
  talk.hidden = true;
  cell.append(line, talk);
  line.addEventListener('click', open);
  let room = '';

  function label(): void {
    // Starts with "Schedule of <room>" (what it opens), then the words it shows.
    const text = `Schedule of ${room}: ${line.textContent}`;
    if (line.getAttribute('aria-label') !== text) line.setAttribute('aria-label', text);
  }

  return {
    cell,
    name(next) {
      room = next;
      label();
    },
    show(text, talkText, warn = false) {
      if (line.textContent !== text) {
        line.textContent = text;
        line.title = text;
        label();
      }
      const words = talkText ?? '';
      if (talk.textContent !== words) {
        talk.textContent = words;
        talk.title = words;
      }
      talk.hidden = talkText === undefined;
      if (warn) talk.dataset.tone = 'warn';
      else delete talk.dataset.tone;
      cell.dataset.schedule = text === 'By hand' ? 'hand' : 'venue';
    },
  };
}
