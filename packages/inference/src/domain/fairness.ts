import type { InferenceRequest } from '@live-captions/protocol';

/**
 * Whose turn a job waits for: its caption room's, or its stream's when it names no room. Decode
 * slots (in-process) and queue priorities (Redis) go round robin across these groups.
 */
export function fairnessGroup(request: Pick<InferenceRequest, 'room' | 'streamId'>): string {
  return request.room ? `room:${request.room}` : `stream:${request.streamId}`;
}
