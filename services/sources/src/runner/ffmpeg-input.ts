/**
 * What one ffmpeg run of a source opens: this replica's push listener (nginx-rtmp's play address,
 * or an SRT listener on the source's port with its key as passphrase), or a pull URL whose host
 * was checked now (at each start: a DNS answer may have changed since the source was added).
 */
import type { EgressProxy } from '../adapters/egress-proxy.js';
import { checkedAddress } from '../adapters/egress-proxy.js';
import type { SourceRow } from '../adapters/sources-repo.js';
import type { AllowList } from '../domain/addresses.js';
import type { FfmpegInput } from '../domain/ffmpeg-args.js';
import { hostOf, parsePullUrl } from '../domain/source-input.js';

export interface InputDeps {
  proxy: EgressProxy;
  allowedHosts: AllowList;
  /** Where this replica's push listeners are: nginx-rtmp's play address, the SRT bind address. */
  push: {
    rtmpPlay: string | undefined;
    srtBind: string;
    /** Disconnects the RTMP encoder publishing with a key (the listener's `dropPublisher`). */
    dropRtmp?: (key: string) => Promise<void>;
  };
}

/** The input of one run, and what to close when it ends; throws why it cannot be opened. */
export async function openInput(
  source: SourceRow,
  deps: InputDeps,
  onRefused: (reason: string) => void,
): Promise<{ input: FfmpegInput; close: () => void }> {
  if (source.kind === 'rtmp-push') {
    if (!deps.push.rtmpPlay) throw new Error('this node has no RTMP listener (SOURCES_RTMP_PORT=0)');
    return {
      input: { kind: 'rtmp-push', url: `${deps.push.rtmpPlay}/${source.streamKey}` },
      close: () => {},
    };
  }
  if (source.kind === 'srt-push') {
    const passphrase = encodeURIComponent(source.streamKey ?? '');
    return {
      input: {
        kind: 'srt-push',
        url: `srt://${deps.push.srtBind}:${source.srtPort}?mode=listener&passphrase=${passphrase}&pbkeylen=32`,
      },
      close: () => {},
    };
  }
  const pull = parsePullUrl(source.url ?? '');
  if (pull.scheme === 'http' || pull.scheme === 'https') {
    // Every host ffmpeg asks the proxy for is checked there, segments and redirects included.
    const proxy = deps.proxy.open(onRefused);
    return {
      input: { kind: 'pull', scheme: pull.scheme, url: pull.url.href, hls: pull.hls, proxyUrl: proxy.url },
      close: proxy.close,
    };
  }
  const address = await checkedAddress(hostOf(pull.url), deps.allowedHosts);
  // ffmpeg connects to the address checked here, not to a second DNS answer (TLS keeps the name).
  const url = new URL(pull.url.href);
  if (pull.scheme !== 'rtmps') url.hostname = address.includes(':') ? `[${address}]` : address;
  if (pull.scheme === 'srt') url.searchParams.set('mode', 'caller');
  return {
    input: { kind: 'pull', scheme: pull.scheme, url: url.href, hls: false, proxyUrl: '' },
    close: () => {},
  };
}
