/**
 * The numbers of the audio contract (speech-contract.md): the engine's rate, the bounds of a clip,
 * the rolling window's rules, and the caption length the relay accepts. Every service, page,
 * test and benchmark reads them from here.
 */

/** whisper.cpp's rate: every clip reaches the engine as 16 kHz mono float32. */
export const SAMPLE_RATE = 16_000;
/** `audio/pcm` in the realtime protocol: 24 kHz 16-bit little-endian mono. */
export const REALTIME_RATE = 24_000;
/** G.711 (μ-law, A-law) in the realtime protocol: 8 kHz, one byte a sample. */
export const G711_RATE = 8_000;

/** Shortest clip the services accept: 0.01 s (160 samples at 16 kHz). */
export const MIN_CLIP_SECONDS = 0.01;
export const MIN_CLIP_SAMPLES = Math.round(MIN_CLIP_SECONDS * SAMPLE_RATE);
/** Longest clip (and longest rolling window) the services accept. */
export const MAX_CLIP_SECONDS = 12;
export const MAX_CLIP_SAMPLES = MAX_CLIP_SECONDS * SAMPLE_RATE;

/** An unfinished rolling window must bring at least this much new audio. */
export const MIN_UNFINISHED_SECONDS = 2;
/** Seconds kept open at the end of an unfinished window: words there may still be spoken. */
export const UNFINISHED_TAIL_SECONDS = 1;

/**
 * Longest prompt (names and terms to expect) a decode takes, in characters, on every path. It is
 * OpenAI's own bound on a realtime transcription prompt (1024), and about what whisper.cpp reads
 * anyway: it conditions on the prompt's last 224 tokens (n_text_ctx / 2), some 900 characters of
 * English, so a longer vocabulary would silently lose its start. Percent-encoded (at most 9
 * bytes a character) it still fits the 16 KiB of request headers Node takes, so the native
 * route's `prompt` query parameter gets its own 400 rather than a 431.
 */
export const MAX_PROMPT_CHARS = 1024;

/** Longest caption text the relay accepts (defined with the relay's other limits). */
export { RELAY_TEXT_MAX } from '@live-captions/protocol';
