/**
 * ffmpeg's command line for a source (pure): its input, locked to the protocols and demuxers that
 * input needs (ffmpeg's `-protocol_whitelist`, which every nested open inherits, such as an HLS
 * playlist's segments and keys, and `-format_whitelist`), then its first audio stream decoded to
 * 16 kHz mono float32 on stdout. HTTP(S) inputs go through the service's egress proxy, which
 * resolves and checks every host ffmpeg asks for (segments and redirects included).
 */
import type { PullScheme } from './source-input.js';

/** What ffmpeg opens, after the host checks (`url` may carry a checked address for its host). */
export type FfmpegInput =
  | { kind: 'pull'; scheme: PullScheme; url: string; hls: boolean; proxyUrl: string }
  | { kind: 'rtmp-push'; url: string }
  | { kind: 'srt-push'; url: string };

export interface FfmpegOptions {
  /** Decoder and filter threads. */
  threads: number;
  /** The certificate authorities a TLS input's certificate must chain to (PEM). */
  caFile: string;
}

const AUDIO_FORMATS = 'mp3,aac,ogg,flac,wav,matroska,mov,mpegts,w64,au';

/** Protocols and demuxers per input: nothing else may be opened, however the input asks. */
export function allowLists(input: FfmpegInput): { protocols: string; formats: string } {
  switch (input.kind) {
    case 'rtmp-push':
      return { protocols: 'rtmp,tcp', formats: 'flv,live_flv' };
    case 'srt-push':
      return { protocols: 'srt', formats: 'mpegts' };
    case 'pull':
      switch (input.scheme) {
        case 'rtmp':
          return { protocols: 'rtmp,tcp', formats: 'flv,live_flv' };
        case 'rtmps':
          return { protocols: 'rtmps,tls,tcp', formats: 'flv,live_flv' };
        case 'srt':
          return { protocols: 'srt', formats: 'mpegts' };
        case 'rtsp':
          return { protocols: 'rtsp,rtp,tcp,udp', formats: 'rtsp' };
        case 'http':
        case 'https':
          // HTTPS goes through the proxy as CONNECT (httpproxy); crypto: AES-128 HLS segments.
          return input.hls
            ? { protocols: 'http,https,tls,tcp,httpproxy,crypto', formats: `hls,${AUDIO_FORMATS}` }
            : { protocols: 'http,https,tls,tcp,httpproxy', formats: AUDIO_FORMATS };
      }
  }
}

/** How long ffmpeg probes an FLV or MPEG-TS stream for its streams, microseconds. */
export const LIVE_ANALYZE_US = 500_000;

/** RTMP (FLV) and SRT (MPEG-TS) inputs, pushed or pulled. */
const streamed = (input: FfmpegInput): boolean =>
  input.kind !== 'pull' || ['rtmp', 'rtmps', 'srt'].includes(input.scheme);

export function ffmpegArgs(input: FfmpegInput, options: FfmpegOptions): string[] {
  const { protocols, formats } = allowLists(input);
  const args = [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    '-threads',
    String(options.threads),
    '-filter_threads',
    '1',
    '-protocol_whitelist',
    protocols,
    '-format_whitelist',
    formats,
  ];
  if (streamed(input))
    // FLV and MPEG-TS announce no streams up front: ffmpeg probes for its default 5 s waiting for
    // a video stream an audio-only encoder never sends, which made RTMP and SRT take about 6 s to
    // go live (0.9-1.7 s with this). The audio's parameters come with its first packets; video is
    // not decoded at all.
    args.push('-analyzeduration', String(LIVE_ANALYZE_US));
  if (input.kind === 'pull') {
    // ffmpeg accepts any TLS certificate unless told to verify it: an RTMPS or HTTPS input (the
    // playlist of an HLS one) must prove its name, or anyone on the path could caption the event.
    if (input.scheme === 'rtmps' || input.scheme === 'https')
      args.push('-tls_verify', '1', '-ca_file', options.caFile);
    if (input.scheme === 'http' || input.scheme === 'https') {
      // Files served whole (a VOD playlist, a recording) are read at their own pace, not at once.
      args.push('-re', '-http_proxy', input.proxyUrl, '-rw_timeout', '15000000');
      if (input.hls) args.push('-f', 'hls');
      else args.push('-icy', '0');
    } else if (input.scheme === 'rtsp') args.push('-rtsp_transport', 'tcp', '-timeout', '15000000');
    else if (input.scheme !== 'srt') args.push('-rw_timeout', '15000000');
  }
  args.push(
    '-i',
    input.url,
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-f',
    'f32le',
    'pipe:1',
  );
  return args;
}
