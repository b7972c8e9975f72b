/**
 * Caption files as players read them. Both SRT and WebVTT end a cue at a blank line, so a caption's
 * own blank lines are folded away; WebVTT also reads `<`, `&` and `-->` in a cue's text as markup
 * or timing, so they are escaped there. Files use `\n` line ends and end with one.
 */
import type { Cue } from './cues.js';
import { clockOf } from './timestamps.js';

/** The caption's lines with empty ones dropped: a blank line would end the cue early. */
function cueLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function escapeVtt(line: string): string {
  return line.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** SubRip: numbered cues, `HH:MM:SS,mmm --> HH:MM:SS,mmm`. */
export function toSrt(cues: readonly Cue[]): string {
  return cues
    .map((cue, index) => {
      const timing = `${clockOf(cue.startMs, ',')} --> ${clockOf(cue.endMs, ',')}`;
      return `${index + 1}\n${timing}\n${cueLines(cue.text).join('\n')}\n`;
    })
    .join('\n');
}

/** WebVTT (W3C): the `WEBVTT` header, then cues `HH:MM:SS.mmm --> HH:MM:SS.mmm`. */
export function toWebVtt(cues: readonly Cue[]): string {
  const body = cues.map((cue) => {
    const timing = `${clockOf(cue.startMs, '.')} --> ${clockOf(cue.endMs, '.')}`;
    return `${timing}\n${cueLines(cue.text).map(escapeVtt).join('\n')}\n`;
  });
  return ['WEBVTT\n', ...body].join('\n');
}

/** Plain text: `[HH:MM:SS] text`, a caption's further lines indented under it. */
export function toText(cues: readonly Cue[]): string {
  return cues
    .map((cue) => {
      const [first = '', ...rest] = cueLines(cue.text);
      const stamp = `[${clockOf(cue.startMs, '.').slice(0, 8)}] `;
      return `${[stamp + first, ...rest.map((line) => ' '.repeat(stamp.length) + line)].join('\n')}\n`;
    })
    .join('');
}

export type CaptionFileFormat = 'srt' | 'vtt' | 'txt';

export const CAPTION_FILE_TYPES: Readonly<Record<CaptionFileFormat, string>> = Object.freeze({
  srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
});

/** The file of `cues` in `format`. */
export function captionFile(cues: readonly Cue[], format: CaptionFileFormat): string {
  if (format === 'srt') return toSrt(cues);
  if (format === 'vtt') return toWebVtt(cues);
  return toText(cues);
}
