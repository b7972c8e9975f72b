/**
 * ffmpeg as an encoder sends a live stream: an audio file looped in real time (`-re`) to `url`,
 * AAC in FLV for RTMP, AAC in MPEG-TS for SRT, or MP3 as an Icecast source client.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export type StreamFormat = 'flv' | 'mpegts' | 'mp3';

export function publishStream(url: string, options: { clip: string; format: StreamFormat }): ChildProcess {
  const codec =
    options.format === 'mp3'
      ? ['libmp3lame', '-b:a', '64k', '-content_type', 'audio/mpeg']
      : ['aac', '-b:a', '64k'];
  return spawn(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-re',
      '-stream_loop',
      '-1',
      '-i',
      options.clip,
      '-c:a',
      ...codec,
      '-f',
      options.format,
      url,
    ],
    { stdio: 'ignore' },
  );
}
