import { RELAY_ROOM_NAME } from '@live-captions/protocol';

/** A random id with a readable prefix (stream ids, request ids): 96 bits, hex. */
export function randomId(prefix: string): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The headers of every request of a capture stream to the gateway. */
export function gatewayHeaders(
  stream: { streamId: string; room?: string; apiKey?: string },
  extra: Record<string, string>,
): Record<string, string> {
  return {
    'X-Caption-Local': '1',
    'X-Stream-ID': stream.streamId,
    // Only a name the relay could have: a typo in a form never costs the stream its windows.
    ...(stream.room && RELAY_ROOM_NAME.test(stream.room) ? { 'X-Caption-Room': stream.room } : {}),
    ...(stream.apiKey ? { Authorization: `Bearer ${stream.apiKey}` } : {}),
    ...extra,
  };
}
