/** Stable codes of engine failures; the native addon reports the same codes. */
export type WhisperErrorCode =
  | 'WHISPER_ADDON_MISSING'
  | 'WHISPER_LOAD_FAILED'
  | 'WHISPER_STATE_FAILED'
  | 'WHISPER_DECODE_FAILED'
  | 'WHISPER_ABORTED'
  | 'WHISPER_BUSY'
  | 'WHISPER_FREED'
  | 'WHISPER_VAD_FAILED'
  | 'WHISPER_INVALID_OPTION';

export class WhisperError extends Error {
  constructor(
    readonly code: WhisperErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'WhisperError';
  }
}

/** Turns an error thrown by the addon (an Error with `code`) into a WhisperError. */
export function fromNative(error: unknown): WhisperError {
  if (error instanceof WhisperError) return error;
  const native = error as { code?: string; message?: string };
  const code = (native?.code ?? 'WHISPER_DECODE_FAILED') as WhisperErrorCode;
  return new WhisperError(code, native?.message ?? String(error), { cause: error });
}
