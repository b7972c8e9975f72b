/**
 * The stream sources service's HTTP answers (services/sources): live streams captioned into an
 * event's source room with no browser open. The links hub's "Stream sources" panel reads them; a
 * source's stream key, passphrase or URL credentials never appear here whole, only in the one
 * answer that creates a push source (`push`).
 */

/** pull: the service reads a URL; rtmp-push / srt-push: an encoder sends to the service's listener. */
export type StreamSourceKind = 'pull' | 'rtmp-push' | 'srt-push';

/**
 * connecting: starting, or waiting for the encoder; live: audio comes; silent: audio, but nothing
 * above the sensitivity's level for a while; reconnecting: the input ended or could not be opened,
 * retried with backoff; failed: the same three times in a row (still retried); stopped: not run.
 */
export type StreamSourceState = 'connecting' | 'live' | 'silent' | 'reconnecting' | 'failed' | 'stopped';

/** The capture settings of a source, the capture page's own. */
export interface StreamSourceSettings {
  /** A language code or `auto`. */
  language: string;
  mode: 'transcribe' | 'translate' | 'both';
  /** The decoder's prompt: names and terms of the event. */
  vocabulary: string;
  replacements: { from: string; to: string }[];
  maskProfanity: boolean;
  sensitivity: 'quiet' | 'normal' | 'noisy';
  intervalSeconds: 3 | 6 | 9;
}

export interface NewStreamSource {
  room: string;
  name: string;
  input: { kind: 'pull'; url: string } | { kind: 'rtmp-push' | 'srt-push'; streamKey?: string };
  settings?: Partial<StreamSourceSettings>;
  running?: boolean;
}

export interface StreamSource {
  id: string;
  room: string;
  name: string;
  /** The URL with credentials, query values and an RTMP stream key masked; a push URL with its key masked. */
  input: { kind: StreamSourceKind; url: string };
  settings: StreamSourceSettings;
  running: boolean;
  state: StreamSourceState;
  /** Why it is in its state (ffmpeg's last error with URLs blanked, a refusal, the gateway's state). */
  reason: string | null;
  /** 0..1 over the last 60 dB, as the capture page's meter. */
  level: number;
  /** Audio received and not yet captioned, seconds. */
  behindSeconds: number;
  /** Captions the relay acknowledged. */
  captionsSent: number;
  since: string | null;
  node: string | null;
  /**
   * While it runs: the write sockets of its room on the relay, its own included; more than 1,
   * another publisher (a capture page, another source) writes into the room too and their
   * captions interleave. Absent until the relay said, and from services of an earlier version.
   */
  roomWriters?: number;
}

/** `POST /sources`' answer: the new source, and for a push source its URL and key, shown this once. */
export interface CreatedStreamSource {
  source: StreamSource;
  push?: { url: string; streamKey: string };
}
