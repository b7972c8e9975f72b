/**
 * The outputs service of a browser session: archiving the session's output room from now on.
 */
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { type Cue, clockOf, parseSrt, parseWebVtt } from '@live-captions/caption-files';
import { freePort, startService, until as waitFor } from '../deploy/helpers/processes.js';
import type { Session } from './session.js';

/**
 * The outputs service on the stack's relay, archiving the output room from now on (a first join
 * starts at the live edge): its address and a stop.
 */
export async function startArchive(session: Session): Promise<{ api: string; stop: () => Promise<unknown> }> {
  const { stack, scratch } = session;
  const port = await freePort();
  const outputs = startService('outputs', {
    LOG_LEVEL: 'warn',
    OUTPUTS_BIND: '127.0.0.1',
    OUTPUTS_PORT: String(port),
    OUTPUTS_DATA_DIR: join(scratch, 'outputs'),
    RELAY_URL: stack.relayUrl,
    CAPTION_RELAY_CONFIG: join(stack.dir, 'relay.private.json'),
  });
  const api = `http://127.0.0.1:${port}/rooms/${stack.rooms.output}`;
  const auth = { Authorization: `Bearer ${stack.tokens.outputWrite}` };
  try {
    await waitFor(
      'the outputs service',
      async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
      // Started from its sources (tsx): slow on a loaded machine.
      120_000,
    );
    const added = await fetch(`${api}/destinations`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'archive' }),
    });
    expect(added.status).toBe(201);
    await waitFor(
      'the archive sending',
      async () => {
        const list = (await (await fetch(`${api}/destinations`, { headers: auth })).json()) as {
          destinations: { state: string }[];
        };
        return list.destinations.every((d) => d.state === 'sending');
      },
      30_000,
    );
  } catch (error) {
    await outputs.stop();
    throw new Error(`${(error as Error).message}\n${outputs.output()}`);
  }
  return { api, stop: () => outputs.stop() };
}

/** One line of the archive's plain text: `[HH:MM:SS] text` (a caption's further lines folded in). */
export interface TextLine {
  stamp: string;
  text: string;
}

/**
 * The archive's plain text read strictly (toText's format): every line is `[HH:MM:SS] text` or
 * a further line of the caption above, indented under its text; nothing else, no blank line.
 */
export function parseArchiveText(txt: string): TextLine[] {
  if (txt !== '' && !txt.endsWith('\n')) throw new Error('the text file does not end with a line end');
  const lines: TextLine[] = [];
  for (const [index, line] of txt.split('\n').slice(0, -1).entries()) {
    const stamped = /^\[(\d\d:[0-5]\d:[0-5]\d)\] (\S.*)$/.exec(line);
    const further = /^ {11}(\S.*)$/.exec(line);
    if (stamped) lines.push({ stamp: stamped[1]!, text: stamped[2]! });
    else if (further && lines.length > 0) lines.at(-1)!.text += `\n${further[1]}`;
    else throw new Error(`line ${index + 1} of the text file: "${line}"`);
  }
  return lines;
}

/** One archived session's files, each read with its strict reader; SRT, WebVTT and text agree. */
export interface ArchiveFiles {
  sessions: number;
  srt: Cue[];
  vtt: Cue[];
  txt: TextLine[];
}

/** The archive's latest session (`api`: the output room's address on the outputs service). */
export async function readArchive(api: string, readToken: string): Promise<ArchiveFiles | undefined> {
  const headers = { Authorization: `Bearer ${readToken}` };
  const list = (await (await fetch(`${api}/archive`, { headers })).json()) as { sessions: { id: string }[] };
  const id = list.sessions.at(-1)?.id;
  if (!id) return undefined;
  const [srt, vtt, txt] = await Promise.all(
    ['srt', 'vtt', 'txt'].map(async (format) => {
      const answer = await fetch(`${api}/archive/${id}.${format}`, { headers });
      if (!answer.ok) throw new Error(`${format}: ${answer.status}`);
      return answer.text();
    }),
  );
  const files = {
    sessions: list.sessions.length,
    srt: parseSrt(srt!),
    vtt: parseWebVtt(vtt!),
    txt: parseArchiveText(txt!),
  };
  expect(files.vtt).toEqual(files.srt);
  expect(files.txt).toEqual(
    files.srt.map((cue) => ({ stamp: clockOf(cue.startMs, '.').slice(0, 8), text: cue.text })),
  );
  return files;
}
