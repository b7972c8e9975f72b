/**
 * The outputs service's HTTP answers (services/outputs): where a room's reviewed captions are sent
 * (YouTube Live, Zoom, the transcript archive). The editor page reads them; a destination's secret
 * address never appears here, only `target`, masked.
 */

export type DestinationKind = 'youtube' | 'zoom' | 'archive';

/** starting: reading the room; sending: delivering; waiting: nothing to send or paced; failing: the last attempt failed; stopped: removed or lease lost. */
export type DestinationState = 'starting' | 'sending' | 'waiting' | 'failing' | 'stopped';

/**
 * A caption's track: `"original"` when its `label` is not `"translation"`, else its `ln` (BCP-47,
 * e.g. `"es"`, `"pt-BR"`). The capture page's own Whisper translation is the track `"en"`.
 */
export type CaptionTrack = 'original' | (string & {});

/**
 * What the operator adds: the platform's caption address (a secret), the track it gets
 * (`"original"` by default) and, for Zoom, the language (default: the track's, `en-US` for the
 * original).
 */
export type NewDestination =
  | { kind: 'youtube'; url: string; track?: CaptionTrack }
  | { kind: 'zoom'; url: string; lang?: string; track?: CaptionTrack }
  | { kind: 'archive' };

export interface Destination {
  id: string;
  kind: DestinationKind;
  /** "YouTube Live", "Zoom", "Transcript archive". */
  label: string;
  /** The address with its secret parts masked (`https://upload.youtube.com/closedcaption?cid=…abcd`); null for the archive. */
  target: string | null;
  lang?: string;
  /** The track a YouTube or Zoom destination gets; absent for the archive (it keeps every track). */
  track?: CaptionTrack;
  state: DestinationState;
  /** Captions accepted from the room but not yet delivered here. */
  behind: number;
  /** Captions delivered. */
  sent: number;
  /**
   * Captions not sent because they were older than the live bound (`OUTPUTS_LIVE_MAX_AGE_MS`,
   * 1 minute) when their turn came, after an outage; the archive has them. 0 for the archive.
   */
  skipped: number;
  lastError: { at: string; message: string } | null;
}

/**
 * The calendar event a session is the transcript of (issue 41: the scheduler sends it), as the
 * calendar had it when the talk ran; times in UTC ISO 8601.
 */
export interface ArchiveEvent {
  /** The calendar's event id. */
  id: number;
  title: string;
  start: string;
  end: string;
}

/** One archived session of a room: its captions download as SRT, WebVTT or text. */
export interface ArchiveSession {
  id: string;
  startedAt: string;
  endedAt: string | null;
  /** Captions of the original track. */
  captions: number;
  /** Every track the session holds, `"original"` first: each downloads as `<session>.<track>.<ext>`. */
  tracks: { track: CaptionTrack; captions: number }[];
  /** The talk it is (public at `/transcripts/<id>`); null for a session no schedule cut. */
  event: ArchiveEvent | null;
}

/** `PUT /rooms/:room/archive/event`'s body: the event the room's captions belong to from now on. */
export interface ArchiveEventRequest {
  event: ArchiveEvent | null;
}

/** Its answer: the session the room's captions now go to (null: a room without archive, `null` sent). */
export interface ArchiveEventAnswer {
  session: { id: string; event: ArchiveEvent | null; startedAt: string; endedAt: string | null } | null;
}

/**
 * `GET /transcripts/:session` (public, for a session tagged with an event): the talk's files,
 * each path relative to the outputs service's base (`transcripts/<id>.de.vtt`).
 */
export interface PublicTranscript {
  session: string;
  event: ArchiveEvent;
  startedAt: string;
  /** Null while the talk's session is open. */
  endedAt: string | null;
  tracks: { track: CaptionTrack; captions: number; srt: string; vtt: string; txt: string }[];
}

export type TranslationEngineKind = 'apertium' | 'libretranslate' | 'deepl';

/**
 * starting: not translated anything yet (or the room's reader is joining); translating: working;
 * waiting: the engine failed in a way worth retrying soon (5xx, 429, timeout), retried with
 * backoff; failing: the engine refused the requests (key, quota, pair), retried slowly; stopped:
 * the room is no longer in the relay's configuration.
 */
export type TranslationState = 'starting' | 'translating' | 'waiting' | 'failing' | 'stopped';

/** A translation target the operator adds to a room. */
export interface NewTranslation {
  /** BCP-47 target track, e.g. "es". */
  target: string;
  engine: TranslationEngineKind;
  /** The room's spoken language, BCP-47; default "en". */
  source?: string;
  /** libretranslate: required; deepl: default from the key (":fx" -> api-free.deepl.com); apertium: default OUTPUTS_APERTIUM_URL. */
  url?: string;
  /** deepl: required; libretranslate: optional api_key. Stored server-side, never returned. */
  key?: string;
}

export interface Translation {
  id: string;
  target: string;
  source: string;
  engine: TranslationEngineKind;
  /** The engine's origin (no key in it). */
  endpoint: string;
  /** Masked: "…abcd" (last 4), null without a key. */
  key: string | null;
  state: TranslationState;
  /** Original captions accepted but not yet translated and published. */
  behind: number;
  /** Translations published (corrections included). */
  sent: number;
  /** Never the key, never caption text. */
  lastError: { at: string; message: string } | null;
}

/** What `POST /rooms/:room/translation-languages` answers: the targets the engine reports. */
export interface TranslationLanguages {
  engine: TranslationEngineKind;
  source: string;
  targets: { code: string; name: string }[];
}

/** `GET/PUT /rooms/:room/vocabulary`: names the translations keep unchanged. */
export interface Vocabulary {
  terms: string[];
}

/** Every error answer of the outputs service. */
export interface OutputsError {
  error: { message: string; code: string };
}
