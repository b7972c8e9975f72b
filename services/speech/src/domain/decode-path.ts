import type { InferenceRequest } from '@live-captions/protocol';

/** Which API a decode served: `/v1` files, native rolling windows, or a realtime session's turns. */
export type DecodePath = 'v1' | 'native' | 'realtime';

/** Stream id prefix of a realtime session's temporary stream. */
export const REALTIME_STREAM_PREFIX = 'realtime-';

export function decodePath(request: Pick<InferenceRequest, 'offline' | 'streamId'>): DecodePath {
  if (request.streamId.startsWith(REALTIME_STREAM_PREFIX)) return 'realtime';
  return request.offline ? 'v1' : 'native';
}
