/**
 * Wire shapes of the caption relay (protocol 2). Each WebSocket text frame holds one of these as
 * JSON. They narrow the types generated from `proto/relay.proto` (src/gen, `pnpm generate`) where
 * proto JSON is looser than the contract: required fields, `gap` and `id` unions.
 */
import type {
  AckJson,
  CaptionJson,
  CursorJson,
  DeliveryJson,
  GapJson,
  JoinedJson,
  JoinJson,
  PublishJson,
  RoleJson,
} from './gen/relay_pb.js';

export * as hrpcPb from './gen/hrpc_pb.js';
export * as relayPb from './gen/relay_pb.js';

export const RELAY_PROTOCOL = 2;

export type RelayRole = RoleJson;

/** Why a reader misses captions: the history no longer holds them, or the relay restarted. */
export type RelayGapReason = 'history-expired' | 'relay-restarted';

type Exact<T, K extends keyof T> = Required<Pick<T, K>>;

export type RelayCursor = Exact<CursorJson, 'epoch' | 'sequence'>;

export type RelayDelivery = Exact<DeliveryJson, 'client' | 'sequence'>;

/** First frame of a socket. */
export type RelayJoin = Exact<JoinJson, 'join' | 'role' | 'token'> & {
  protocol: typeof RELAY_PROTOCOL;
  cursor?: RelayCursor;
};

/** The relay's answer to a join. */
export type RelayJoined = Exact<JoinedJson, 'joined' | 'role' | 'epoch' | 'next' | 'retentionMs'> & {
  protocol: typeof RELAY_PROTOCOL;
  gap: false | RelayGapReason;
};

/** Caption fields shared by a publish and what readers get. Exactly one of `final` / `interm`. */
export type RelayCaptionFields = Pick<PublishJson, 'label' | 'ln' | 'c'> & {
  msg: true;
  id: number | string;
} & ({ final: string; interm?: never } | { interm: string; final?: never });

/** A caption sent by a write socket. */
export type RelayPublish = RelayCaptionFields & { delivery: RelayDelivery };

/** The relay's answer to a publish (also to a duplicate, with the original's room sequence). */
export type RelayAck = Omit<Exact<AckJson, 'epoch' | 'sequence'>, 'ack'> & { ack: RelayDelivery };

/** A caption as a read socket gets it. */
export type RelayCaption = RelayCaptionFields &
  Omit<CaptionJson, keyof RelayCaptionFields | 'relay'> & {
    relay: RelayCursor;
  };

/** Captions a reader will not get. */
export type RelayGap = Exact<GapJson, 'epoch' | 'next'> & { gap: RelayGapReason };

/** Frames the relay sends. */
export type RelayServerFrame = RelayJoined | RelayAck | RelayCaption | RelayGap;

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
export const RELAY_LABEL_MAX = 128;
export const RELAY_LN_MAX = 32;
export const RELAY_DELIVERY_CLIENT = /^[A-Za-z0-9_-]{16,128}$/;
export const RELAY_ROOM_NAME = /^[A-Za-z0-9_-]{1,128}$/;
export const RELAY_TOKEN = /^[A-Za-z0-9_-]{32,128}$/;
