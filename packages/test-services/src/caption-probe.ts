import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How many cues ffmpeg reads from a caption file (`ffprobe -count_packets` on its subtitle
 * stream): a player built on ffmpeg shows exactly these. ffmpeg drops a cue that repeats the one
 * before it with the same times and text, so a file that counts fewer cues than it holds shows a
 * duplicate.
 */
export function ffprobeCueCount(text: string, format: 'srt' | 'vtt'): number {
  const dir = mkdtempSync(join(tmpdir(), 'ffprobe-'));
  try {
    const file = join(dir, `captions.${format}`);
    writeFileSync(file, text);
    const out = execFileSync(
      'ffprobe',
      [
        '-v',
        'error',
        '-select_streams',
        's:0',
        '-count_packets',
        '-show_entries',
        'stream=nb_read_packets',
        '-of',
        'csv=p=0',
        file,
      ],
      { encoding: 'utf8' },
    );
    return Number(out.trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
