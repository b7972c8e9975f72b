import { INFERENCE_FAILURE_CODES } from '@live-captions/protocol';
import { InferenceError } from '../queue.js';

/** BullMQ keeps only a failure's message: the code travels as its prefix. */
export function encodeFailure(error: InferenceError): string {
  return `${error.code}: ${error.message}`;
}

export function decodeFailure(reason: string | undefined): InferenceError {
  const text = reason ?? '';
  const code = INFERENCE_FAILURE_CODES.find((candidate) => text.startsWith(`${candidate}: `));
  return code
    ? new InferenceError(code, text.slice(code.length + 2))
    : new InferenceError('inference_failed', text || 'the worker failed without a reason');
}
