// The engine benchmark compares like with like only when both sides decoded the same thing: this
// puts our transcription and whisper-cli's `-ojf` JSON in one form (segment and text-token
// times in milliseconds) so a difference in text or timestamps stops the benchmark.
import { readFileSync } from 'node:fs';
import type { Transcription } from '@live-captions/whisper';

interface CliToken {
  id: number;
  /** Absent when whisper.cpp left the token untimed (t0 or t1 = -1). */
  offsets?: { from: number; to: number };
}

interface CliSegment {
  text: string;
  offsets: { from: number; to: number };
  tokens: CliToken[];
}

/** whisper.cpp's end-of-text id: tokens from it on are special (timestamps, markers). */
const endOfText = (multilingual: boolean) => (multilingual ? 50257 : 50256);
/** whisper.cpp's "no time" (-1 centisecond) in milliseconds. */
const UNTIMED_MS = -10;

const line = (t0: number, t1: number, text: string, tokens: string[]) =>
  `[${t0} --> ${t1}] ${JSON.stringify(text)} ${tokens.join(' ')}`;

export function ourOutput(transcription: Transcription): string[] {
  const ms = (seconds: number) => Math.round(seconds * 1000);
  return transcription.segments.map((segment) =>
    line(
      ms(segment.t0),
      ms(segment.t1),
      segment.text,
      segment.tokens.map((token) => `${token.id}@${ms(token.t0)}-${ms(token.t1)}`),
    ),
  );
}

export function cliOutput(jsonFile: string, multilingual: boolean): string[] {
  const json = JSON.parse(readFileSync(jsonFile, 'utf8')) as { transcription: CliSegment[] };
  return json.transcription.map((segment) =>
    line(
      segment.offsets.from,
      segment.offsets.to,
      segment.text,
      segment.tokens
        .filter((token) => token.id < endOfText(multilingual))
        .map(
          (token) => `${token.id}@${token.offsets?.from ?? UNTIMED_MS}-${token.offsets?.to ?? UNTIMED_MS}`,
        ),
    ),
  );
}

/** Throws when the two outputs differ, showing both. */
export function assertSameOutput(cell: string, ours: string[], cli: string[]): void {
  if (ours.join('\n') === cli.join('\n')) return;
  throw new Error(
    `${cell}: ours and whisper-cli decoded differently, so their times cannot be compared\n` +
      `ours:\n  ${ours.join('\n  ')}\nwhisper-cli:\n  ${cli.join('\n  ')}`,
  );
}
