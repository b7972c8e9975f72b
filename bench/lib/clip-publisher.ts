// ffmpeg as an encoder for the stream benches (bench ingest, bench conference): a clip looped in
// real time to a media server, with the wall time its stream time 0 corresponds to, from
// ffmpeg's own `-progress` clock (where the end of speech of each loop is placed).
import { type ChildProcess, spawn } from 'node:child_process';

export interface Publisher {
  child: ChildProcess;
  /** Wall time (ms) of stream time 0, from the earliest `-progress` report. */
  origin(): number | undefined;
  stop(): Promise<void>;
}

/** The clip `wav` looped in real time to `url` as AAC in `format` (flv over RTMP, mpegts over SRT). */
export function publish(wav: string, url: string, format: 'flv' | 'mpegts' = 'flv'): Publisher {
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-progress', 'pipe:1', '-stats_period', '0.5'],
      ...['-re', '-stream_loop', '-1', '-i', wav, '-c:a', 'aac', '-b:a', '64k', '-f', format, url],
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let origin: number | undefined;
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const now = Date.now();
    text += chunk.toString();
    const lines = text.split('\n');
    text = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^out_time_us=(\d+)$/.exec(line.trim());
      if (!match || Number(match[1]) <= 0) continue;
      const candidate = now - Number(match[1]) / 1000;
      origin = origin === undefined ? candidate : Math.min(origin, candidate);
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    origin: () => origin,
    async stop() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
