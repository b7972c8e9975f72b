/**
 * One ffmpeg run for a source: started under `nice` and `prlimit` (its address space bounded, no
 * core files), its stdout read as 16 kHz mono float32 in 50 ms frames, its last error line kept
 * (with every URL in it blanked: a URL may carry a key) as the reason when it ends.
 */
import { spawnTied } from './tied-process.js';

export const FRAME_SAMPLES = 800;
/** How long a stopped ffmpeg may take to close its input before it is killed. */
const STOP_GRACE_MS = 1000;

export interface FfmpegRunOptions {
  ffmpegPath: string;
  args: string[];
  nice: number;
  memoryMb: number;
  onFrame: (frame: Float32Array) => void;
}

export interface FfmpegRun {
  /** Resolves when the process has ended, with why (its last error line, or the exit status). */
  readonly ended: Promise<string>;
  stop(): void;
}

/** An ffmpeg error line with URLs and anything after `?` blanked. */
export function cleanReason(line: string): string {
  return line
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    .replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/i, '')
    .trim()
    .slice(0, 200);
}

export function runFfmpeg(options: FfmpegRunOptions): FfmpegRun {
  const child = spawnTied(
    'nice',
    [
      '-n',
      String(options.nice),
      'prlimit',
      `--as=${options.memoryMb * 1024 * 1024}`,
      '--core=0',
      '--',
      options.ffmpegPath,
      ...options.args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let rest = Buffer.alloc(0);
  let frame = new Float32Array(FRAME_SAMPLES);
  let filled = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    const bytes = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 4);
    rest = Buffer.from(bytes.subarray(whole));
    for (let offset = 0; offset < whole; offset += 4) {
      frame[filled++] = bytes.readFloatLE(offset);
      if (filled === FRAME_SAMPLES) {
        options.onFrame(frame);
        frame = new Float32Array(FRAME_SAMPLES);
        filled = 0;
      }
    }
  });
  let lastError = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4096);
    const lines = stderr.split('\n').filter((line) => line.trim());
    // The last line names the input and an errno ("Input/output error"); a TLS refusal says why
    // on the line before it, which is what an operator needs to see.
    const why = lines.findLast((line) => /certificate/i.test(line)) ?? lines.at(-1);
    if (why) lastError = cleanReason(why);
  });
  const ended = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`cannot start ffmpeg: ${error.message}`));
    child.once('close', (code, signal) =>
      resolve(lastError || (signal ? `ffmpeg stopped (${signal})` : `ffmpeg ended (exit ${code})`)),
    );
  });
  return {
    ended,
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM first: ffmpeg then closes its input, so an SRT encoder sending to it is told at
      // once (killed, the encoder would wait for SRT's 5 s peer timeout). SIGKILL if it lingers.
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.once('close', () => clearTimeout(kill));
    },
  };
}
