// What a model download reports and takes: its own module, so that download.ts and the fetch
// loop it drives (download-fetch.ts) share them without importing each other.

export type DownloadEvent =
  /** The lock is held by another download of the same file; waiting for it. */
  | { type: 'wait'; name: string; holder: string }
  /** Hashing a file that is already in place. */
  | { type: 'check'; name: string; path: string }
  /** The file was already in place and verified: nothing to download. */
  | { type: 'present'; name: string; path: string; bytes: number }
  /** A response is streaming; `offset` > 0 when a partial download is resumed. */
  | { type: 'start'; name: string; url: string; offset: number; total: number | undefined; attempt: number }
  /** Bytes on disk so far (including a resumed prefix). */
  | { type: 'progress'; name: string; received: number; total: number | undefined }
  /** A transient failure; the next attempt starts after `delayMs`. */
  | { type: 'retry'; name: string; attempt: number; delayMs: number; reason: string }
  /** The file is in place and its SHA-1 matched. */
  | { type: 'done'; name: string; path: string; bytes: number; sha1: string };

export interface DownloadOptions {
  /** Folder of the models; the file is `<modelDir>/ggml-<name>.bin`. Created when missing. */
  modelDir: string;
  /** A mirror (CAPTION_MODEL_BASE_URL, see config.ts). @defaultValue the model's repository (https://huggingface.co/ggerganov/whisper.cpp) */
  baseUrl?: string;
  onProgress?: (event: DownloadEvent) => void;
  /** Failed attempts in a row (without new bytes) before giving up. @defaultValue 5 */
  retries?: number;
  /** First backoff delay, doubled per failure up to 30 s; Retry-After wins when sent. @defaultValue 1000 */
  retryDelayMs?: number;
  /** An attempt that receives nothing for this long is dropped and retried. @defaultValue 60000 */
  stallTimeoutMs?: number;
  /** A lock file older than this (no heartbeat) belongs to a dead download. @defaultValue 60000 */
  lockStaleMs?: number;
  /** Cancels the download; the partial file is kept for the next run to resume. */
  signal?: AbortSignal;
  /** @defaultValue globalThis.fetch (Node's undici) */
  fetch?: typeof fetch;
  /** SHA-1 to verify against instead of the catalog's; also allows names outside the catalog (tests, mirrors). */
  expectedSha1?: string;
}
