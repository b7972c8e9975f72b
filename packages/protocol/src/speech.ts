/**
 * Bodies of the speech gateway's HTTP API that other parts read: the capture page, the links hub
 * and the tests. The gateway builds them with these types; the readers cast its JSON to them.
 */
import type { TaskMode } from './jobs.js';

/** `POST /transcribe` 200 body (speech-contract.md, "Native response"); seconds have 3 decimals. */
export interface TranscribeResponse {
  text: string;
  transcript: string;
  translation: string;
  language: string | null;
  output_language: string | null;
  translation_language: string | null;
  mode: TaskMode;
  audio_seconds: number;
  committed_seconds: number;
  request_id: string;
  stream_id: string;
  queue_seconds: number;
  inference_seconds: number;
  /** Present (true) when a guard removed hallucinated or repeated text from this answer. */
  trimmed?: true;
}

/**
 * `GET /relay-config`: the capture page's and the links hub's auto-fill data, from the gateway's
 * `secrets/relay-tokens.env`. Field names are a stable contract.
 */
export interface RelaySettings {
  /** RELAY_ADDRESS: the relay WebSocket URL (wss://). */
  relayUrl: string;
  /** RELAY_SITE: UI base URL with trailing slash, or null when unset (no links then). */
  site: string | null;
  /** RELAY_ROOM */
  sourceRoom: string;
  /** RELAY_OUTPUT_ROOM */
  outputRoom: string;
  /** RELAY_SOURCE_READ */
  sourceReadToken: string;
  /** RELAY_SOURCE_WRITE */
  sourceWriteToken: string;
  /** RELAY_OUTPUT_READ, or null */
  outputReadToken: string | null;
  /** RELAY_OUTPUT_WRITE, or null */
  outputWriteToken: string | null;
  /** Editor and overlay links built from RELAY_SITE (null without it). */
  links: { editor: string | null; overlay: string | null };
}
