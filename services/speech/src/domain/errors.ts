/**
 * Every refusal of the speech gateway, with the exact messages of the contract
 * (`shared/reference/speech-contract.md`). Routes throw {@link HttpError}; one error handler
 * renders it as `{"detail"}` on native routes and adds the OpenAI `error` object under `/v1`.
 */
import { LanguageModeMessages, MAX_PROMPT_CHARS } from '@live-captions/audio';

export type OpenAiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'server_error';

export interface HttpErrorOptions {
  /** Seconds, integer >= 1; sent as `Retry-After` (429 and 503 always carry one). */
  retryAfter?: number;
  /** The offending request field, for the OpenAI `error.param`. */
  param?: string | null;
  /** Short stable code for the OpenAI `error.code`. */
  code?: string | null;
  /** Why a 503 happened (e.g. `redis unreachable: ...`), for operators reading /health. */
  reason?: string;
}

export class HttpError extends Error {
  readonly retryAfter: number | undefined;
  readonly param: string | null;
  readonly code: string | null;
  readonly reason: string | undefined;

  constructor(
    readonly status: number,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.retryAfter = options.retryAfter ?? (status === 429 || status === 503 ? 1 : undefined);
    this.param = options.param ?? null;
    this.code = options.code ?? defaultCode(status);
    this.reason = options.reason;
  }

  get type(): OpenAiErrorType {
    return openAiType(this.status);
  }
}

function openAiType(status: number): OpenAiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function defaultCode(status: number): string | null {
  switch (status) {
    case 401:
      return 'invalid_api_key';
    case 408:
      return 'upload_timeout';
    case 409:
      return 'request_id_conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 503:
      return 'unavailable';
    default:
      return null;
  }
}

/** The contract's messages, in one place so tests and routes cannot drift apart. */
export const Messages = {
  unauthorized: 'Missing or invalid access token',
  forbidden: 'Use the local capture page',
  contentType: 'Expected little-endian float32 mono PCM at 16000 Hz',
  // The worker refuses an unsupported job in the same words: both read them from the shared rule.
  language: LanguageModeMessages.language,
  mode: LanguageModeMessages.mode,
  englishOnly: LanguageModeMessages.englishOnly,
  context: 'Context must be between 0 and 1 seconds',
  prompt: `prompt must be one text of at most ${MAX_PROMPT_CHARS} characters`,
  requestId: 'Invalid request ID',
  streamId: 'Invalid stream ID',
  room: 'Invalid caption room: 1-128 characters of A-Z a-z 0-9 _ -',
  // Each 429 names the capacity that is exhausted: the gateway's streams, one stream's turn, the
  // inference workers' decode slots, or the gateway's concurrent HTTP requests.
  capacity: 'Gateway stream capacity reached (CAPTION_MAX_STREAMS); idle sessions expire after 120 seconds',
  busy: 'Stream busy; retry shortly',
  tooLong: 'Audio chunk exceeds 12 seconds',
  uploadTimeout: 'Audio upload timed out',
  pcmLength: 'Invalid PCM length',
  pcmSamples: 'Invalid PCM samples',
  window: 'Window must contain new audio; unfinished windows need at least two seconds',
  conflict: 'Request ID was already used for different audio or options',
  queueDeadline:
    'Inference workers saturated: no decode slot freed within the queue deadline (CAPTION_QUEUE_TIMEOUT); retry pending audio',
  inferenceFailed: 'Transcription failed; pending audio can be retried',
  busyClose: 'Finish pending audio before closing a stream',
  modelLoading: 'Model loading',
  restarting: 'Service restarting',
  httpLimit: 'Gateway request limit reached (CAPTION_HTTP_LIMIT concurrent requests); retry shortly',
  unavailable: 'Inference workers unavailable; retry shortly',
  notFound: 'Not Found',
  // /v1 (OpenAI subset)
  envelopeTooLarge: 'Request body exceeds 5 MiB',
  multipart: 'Expected multipart/form-data with a WAV file in the field "file"',
  badMultipart: 'Malformed multipart/form-data body',
  fileMissing: 'Missing required field: file',
  modelMissing: 'Missing required field: model',
  audioTooLong: 'Audio exceeds 12 seconds',
  audioTooShort: 'Audio is shorter than 0.01 seconds',
  wavUnsupported:
    'Unsupported audio: expected an uncompressed PCM WAV file (16/24/32-bit integer or 32-bit float)',
  wavChannels: 'Unsupported audio: expected mono or stereo',
  wavRate: 'Unsupported audio: sample rate must be between 8000 and 48000 Hz',
  wavTruncated: 'Truncated WAV data',
  responseFormat: 'response_format must be json, text, srt, verbose_json or vtt',
  languageOnTranslation: 'Translations detect the language: the language field is not supported',
  streaming: 'stream=true is supported on transcriptions with response_format json or text',
  temperature: 'temperature must be a number between 0 and 1',
  granularity: 'timestamp_granularities[] must be word or segment',
  granularityFormat: 'timestamp_granularities[] requires response_format verbose_json',
  include: 'include[] supports logprobs only, with response_format json or a stream',
  booleanField: (name: string) => `${name} must be true or false`,
  // /v1/realtime
  realtimeIntent: 'Only transcription sessions are served: connect with ?intent=transcription',
  realtimeUnavailable: 'Realtime transcription unavailable: the VAD model is not loaded',
} as const;

export const unknownModel = (loaded: string) => `Unknown model: use "${loaded}" or "whisper-1"`;
export const unknownField = (name: string) => `Unknown field: ${name}`;
export const duplicateField = (name: string) => `Duplicate field: ${name}`;
