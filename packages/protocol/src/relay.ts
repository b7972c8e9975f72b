/**
 * Constants of the caption relay's protocol (2): close codes and the limits of a caption. The
 * frames themselves are the schemas of `relay-frames.ts`.
 */

export const RELAY_PROTOCOL = 2;

/** WebSocket close codes the relay uses. */
export const RelayCloseCode = {
  /** Relay shutting down. */
  goingAway: 1001,
  /** Binary frame. */
  unsupportedData: 1003,
  /** Text that is not JSON. */
  invalidPayload: 1007,
  /** Bad join or token, a read socket publishing, invalid publish, conflict, rate limit, join deadline. */
  policyViolation: 1008,
  /** Frame above `payloadBytes`. */
  messageTooBig: 1009,
  /** Room full or slow consumer: try again later. */
  tryAgainLater: 1013,
} as const;

/** Close codes after which a client must not reconnect by itself. */
export const RELAY_FATAL_CLOSE_CODES: readonly number[] = [
  RelayCloseCode.unsupportedData,
  RelayCloseCode.invalidPayload,
  RelayCloseCode.policyViolation,
  RelayCloseCode.messageTooBig,
];

/** Limits of a caption as the relay enforces them. */
export const RELAY_TEXT_MAX = 4000;
export const RELAY_ID_MAX = 128;
export const RELAY_EPOCH_MAX = 64;
export const RELAY_LABEL_MAX = 128;
export const RELAY_LN_MAX = 32;
export const RELAY_DELIVERY_CLIENT = /^[A-Za-z0-9_-]{16,128}$/;
export const RELAY_ROOM_NAME = /^[A-Za-z0-9_-]{1,128}$/;
export const RELAY_TOKEN = /^[A-Za-z0-9_-]{32,128}$/;

/**
 * The relay's HTTP address from its WebSocket address (the services' RELAY_URL; the ui's
 * default RELAY_API_URL):
 * `ws://host:port/ws` -> `http://host:port`, `wss://host/prefix/ws` -> `https://host/prefix`.
 */
export function relayHttpUrl(relayUrl: string): string {
  const url = new URL(relayUrl);
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('must be a ws:// or wss:// URL');
  const scheme = url.protocol === 'wss:' ? 'https:' : 'http:';
  const path = url.pathname.replace(/\/ws\/?$/, '').replace(/\/+$/, '');
  return `${scheme}//${url.host}${path}`;
}
