/** Chromium's fake microphone input for the browser suite. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A canonical PCM WAV of the clip (fmt + data only) for chromium's fake microphone, with
 * `silenceSeconds` of silence appended so that every loop ends with a pause the page detects.
 */
export function fakeMicrophoneWav(source: string, dir: string, silenceSeconds = 0.6): string {
  const wav = readFileSync(source);
  let offset = 12;
  let fmt: Buffer | undefined;
  let data: Buffer | undefined;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const chunk = wav.subarray(offset + 8, offset + 8 + size);
    if (id === 'fmt ') fmt = chunk;
    if (id === 'data') data = chunk;
    offset += 8 + size + (size % 2);
  }
  if (!fmt || !data) throw new Error(`${source}: not a PCM WAV`);
  const bytesPerSecond = fmt.readUInt32LE(8);
  const blockAlign = fmt.readUInt16LE(12);
  const silence = Buffer.alloc(Math.round((silenceSeconds * bytesPerSecond) / blockAlign) * blockAlign);
  data = Buffer.concat([data, silence]);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(4 + 8 + fmt.length + 8 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  const chunkHeader = (id: string, size: number) => {
    const b = Buffer.alloc(8);
    b.write(id, 0, 'ascii');
    b.writeUInt32LE(size, 4);
    return b;
  };
  const path = join(dir, 'microphone.wav');
  writeFileSync(
    path,
    Buffer.concat([header, chunkHeader('fmt ', fmt.length), fmt, chunkHeader('data', data.length), data]),
  );
  return path;
}
