/**
 * Strict readers of the two cue formats, so that tests (and importers) can tell a valid file from
 * one that merely looks right: every cue has a well-formed timing line, starts no earlier than the
 * previous cue and ends after it starts; SRT cues are numbered 1, 2, 3, ...
 */
import type { Cue } from './cues.js';
import { msOf } from './timestamps.js';

export class CaptionFileError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CaptionFileError';
  }
}

interface Block {
  line: number;
  lines: string[];
}

/** Blocks of non-empty lines, with the line number (1-based) where each starts. */
function blocksOf(text: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  text.split(/\r\n|\r|\n/).forEach((line, index) => {
    if (line.trim() === '') {
      current = undefined;
      return;
    }
    if (!current) {
      current = { line: index + 1, lines: [] };
      blocks.push(current);
    }
    current.lines.push(line);
  });
  return blocks;
}

function timingOf(line: string, at: number, separator: '.' | ','): { startMs: number; endMs: number } {
  const [start = '', arrow, end = ''] = line.trim().split(/\s+/);
  const startMs = msOf(start);
  const endMs = msOf(end);
  if (arrow !== '-->' || startMs === undefined || endMs === undefined || !start.includes(separator)) {
    throw new CaptionFileError(`expected a timing line "start --> end", got "${line}"`, at);
  }
  if (endMs <= startMs) throw new CaptionFileError('cue ends before it starts', at);
  return { startMs, endMs };
}

function inOrder(cues: Cue[], cue: Cue, at: number): Cue[] {
  const previous = cues[cues.length - 1];
  if (previous && cue.startMs < previous.startMs)
    throw new CaptionFileError('cue starts before the previous one', at);
  cues.push(cue);
  return cues;
}

export function parseSrt(text: string): Cue[] {
  return blocksOf(text).reduce<Cue[]>((cues, block) => {
    const [number, timing = '', ...lines] = block.lines;
    if (number?.trim() !== String(cues.length + 1)) {
      throw new CaptionFileError(`expected cue number ${cues.length + 1}`, block.line);
    }
    if (lines.length === 0) throw new CaptionFileError('cue has no text', block.line);
    return inOrder(cues, { ...timingOf(timing, block.line + 1, ','), text: lines.join('\n') }, block.line);
  }, []);
}

const unescapeVtt = (line: string) =>
  line.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

export function parseWebVtt(text: string): Cue[] {
  const [header, ...blocks] = blocksOf(text.replace(/^\uFEFF/, ''));
  if (header?.line !== 1 || !/^WEBVTT([ \t].*)?$/.test(header.lines[0] ?? '')) {
    throw new CaptionFileError('a WebVTT file starts with "WEBVTT"', 1);
  }
  return blocks.reduce<Cue[]>((cues, block) => {
    if (/^(NOTE|STYLE|REGION)\b/.test(block.lines[0] ?? '')) return cues;
    // An optional cue identifier stands before the timing line.
    const timingAt = block.lines[0]?.includes('-->') ? 0 : 1;
    const timing = block.lines[timingAt] ?? '';
    const lines = block.lines.slice(timingAt + 1);
    if (lines.some((line) => line.includes('-->')))
      throw new CaptionFileError('"-->" inside a cue', block.line);
    if (lines.length === 0) throw new CaptionFileError('cue has no text', block.line);
    const cue = { ...timingOf(timing, block.line + timingAt, '.'), text: lines.map(unescapeVtt).join('\n') };
    return inOrder(cues, cue, block.line);
  }, []);
}
