/**
 * The outputs service's HTTP answers (services/outputs): where a room's reviewed captions are sent
 * (YouTube Live, Zoom, the transcript archive). The editor page reads them; a destination's secret
 * address never appears here, only `target`, masked.
 */

export type DestinationKind = 'youtube' | 'zoom' | 'archive';

/** starting: reading the room; sending: delivering; waiting: nothing to send or paced; failing: the last attempt failed; stopped: removed or lease lost. */
export type DestinationState = 'starting' | 'sending' | 'waiting' | 'failing' | 'stopped';

/** What the operator adds: the platform's caption address (a secret) and, for Zoom, the language. */
export type NewDestination =
  | { kind: 'youtube'; url: string }
  | { kind: 'zoom'; url: string; lang?: string }
  | { kind: 'archive' };

export interface Destination {
  id: string;
  kind: DestinationKind;
  /** "YouTube Live", "Zoom", "Transcript archive". */
  label: string;
  /** The address with its secret parts masked (`https://upload.youtube.com/closedcaption?cid=…abcd`); null for the archive. */
  target: string | null;
  lang?: string;
  state: DestinationState;
  /** Captions accepted from the room but not yet delivered here. */
  behind: number;
  /** Captions delivered. */
  sent: number;
  lastError: { at: string; message: string } | null;
}

/** One archived session of a room: its captions download as SRT, WebVTT or text. */
export interface ArchiveSession {
  id: string;
  startedAt: string;
  endedAt: string | null;
  captions: number;
}

/** Every error answer of the outputs service. */
export interface OutputsError {
  error: { message: string; code: string };
}
