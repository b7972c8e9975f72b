/// <reference lib="dom" />
/**
 * The public page's talks of a room bound to a calendar venue: the talk under way and the next
 * one (title and time), and "Transcripts of today's talks": every talk of the day that ended, each with
 * its transcript links of its `captions` field, one line per language track (SRT, WebVTT, text).
 * Built once per room and changed only when what it says changes, so that a reader inside the
 * open list keeps their place at each refresh.
 */
import type { Talk } from '../lib/calendar-client.js';
import { element, languageName } from '../lib/dom.js';
import { daySpanLine, type RoomDay, spanLine, type TimeFormats, trackName } from '../lib/room-talks.js';

export interface TalksBlock {
  block: HTMLElement;
  /** `day` undefined: nothing to show (no venue, or the calendar not read yet). */
  show(day: RoomDay | undefined, now: number): void;
}

const FILES = [
  ['srt', 'SRT'],
  ['vtt', 'WebVTT'],
  ['txt', 'Text'],
] as const;

function talkLine(className: string, label: string, talk: Talk, when: string): HTMLElement {
  const line = element('p', '', className);
  const title = element('strong', talk.title);
  line.append(`${label}: `, title, ` · ${when}`);
  return line;
}

function transcriptItem(talk: Talk, formats: TimeFormats): HTMLLIElement {
  const item = element('li', '', 'now-transcript');
  const head = element('span', '', 'now-transcript-talk');
  head.append(element('strong', talk.title), ` · ${spanLine(talk, formats)}`);
  item.append(head);
  if (talk.transcripts.length === 0) {
    item.append(element('span', 'Transcript not published', 'now-transcript-none'));
    return item;
  }
  const tracks = element('ul', '', 'now-tracks');
  for (const transcript of talk.transcripts) {
    const track = trackName(transcript.track, languageName);
    const line = element('li');
    line.append(`${track}: `);
    FILES.forEach(([key, text], index) => {
      const link = element('a', text);
      link.href = transcript[key];
      link.setAttribute('aria-label', `${text} transcript of ${talk.title}, ${track}`);
      if (index > 0) line.append(' · ');
      line.append(link);
    });
    tracks.append(line);
  }
  item.append(tracks);
  return item;
}

export function newTalksBlock(formats: TimeFormats): TalksBlock {
  const block = element('div', '', 'now-talks');
  block.hidden = true;
  const lines = element('div', '', 'now-talk-lines');
  const details = element('details', '', 'now-transcripts');
  const summary = element('summary');
  const list = element('ul', '', 'now-transcript-list');
  details.append(summary, list);
  block.append(lines, details);
  let shownLines = '';
  let shownList = '';

  return {
    block,
    show(day, now) {
      block.hidden = !day;
      if (!day) return;
      const { current, next, finished } = day;
      const linesKey = JSON.stringify([current, next, next && daySpanLine(next, now, formats)]);
      if (linesKey !== shownLines) {
        shownLines = linesKey;
        const nodes: HTMLElement[] = [];
        if (current) nodes.push(talkLine('now-current', 'Now', current, spanLine(current, formats)));
        if (next) nodes.push(talkLine('now-next', 'Next', next, daySpanLine(next, now, formats)));
        if (!current && !next) nodes.push(element('p', 'No more talks today', 'now-next'));
        lines.replaceChildren(...nodes);
      }
      const listKey = JSON.stringify(finished);
      if (listKey !== shownList) {
        shownList = listKey;
        details.hidden = finished.length === 0;
        summary.textContent = `Transcripts of today's talks (${finished.length})`;
        // The latest first: the talk that just ended is the one most asked for.
        list.replaceChildren(...[...finished].reverse().map((talk) => transcriptItem(talk, formats)));
      }
    },
  };
}
