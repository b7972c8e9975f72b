/**
 * A push source's address as encoders ask for it (pure). OBS's Custom service has two fields,
 * Server and Stream Key: given the whole RTMP address as Server plus the key again, it sends to
 * `.../live/<key>/<key>` and nothing arrives. So the panel shows Server and Stream Key apart, and
 * the whole address for single-field encoders (ffmpeg, hardware encoders). An SRT address carries
 * its key as the passphrase: OBS takes it whole as Server with an empty Stream Key.
 */
import { loopbackHost } from './loopback.js';

export interface PushFields {
  /** OBS's "Server". */
  server: string;
  /** OBS's "Stream Key"; empty where the key is inside the server address (SRT). */
  streamKey: string;
  /** The one address of single-field encoders. */
  whole: string;
}

export function pushFields(push: { url: string; streamKey: string }): PushFields {
  const suffix = `/${push.streamKey}`;
  if (push.url.startsWith('rtmp') && push.streamKey && push.url.endsWith(suffix))
    return { server: push.url.slice(0, -suffix.length), streamKey: push.streamKey, whole: push.url };
  return { server: push.url, streamKey: '', whole: push.url };
}

/**
 * Why an encoder on another machine cannot send to this address, or undefined: the service shows
 * its SOURCES_PUBLIC_HOST, `localhost` unless set, which reaches the encoder's own computer.
 */
export function pushHostProblem(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return undefined;
  }
  if (!loopbackHost(host)) return undefined;
  return (
    `Only an encoder on this computer can send here: the address is at ${host}. ` +
    "For OBS or an encoder on another machine, set SOURCES_PUBLIC_HOST to this computer's address " +
    'on the network (and open its push ports), restart the stream sources service and add the source again.'
  );
}
