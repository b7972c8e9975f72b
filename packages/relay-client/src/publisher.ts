import {
  cleanCaptionText,
  RELAY_PROTOCOL,
  type RelayAck,
  type RelayCaptionFields,
  type RelayDelivery,
  type RelayJoin,
  type RelayJoined,
  type RelayPublish,
  type RelayServerFrame,
} from '@live-captions/protocol';
import { RelayConnection, type RelayConnectionOptions } from './connection.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A caption to publish: `final` or `interm`, an `id`, and optionally `label`, `ln`, `c`. */
export type CaptionInput = DistributiveOmit<RelayCaptionFields, 'msg'>;

export interface RelayPublisherOptions extends RelayConnectionOptions {
  /** Delivery identity of this publisher ([A-Za-z0-9_-]{16,128}); random by default. */
  clientId?: string;
  /** Resend the caption in flight when no ack came within this time. @defaultValue 3000 */
  ackTimeoutMs?: number;
  /** Unacked captions kept; `publish` refuses more. @defaultValue 100 */
  maxQueue?: number;
  /**
   * Frames sent per second at most (counted over 1.1 s, a margin for arrival jitter), resends included; a burst of a full queue after a reconnect
   * then stays under the relay's rate limit (`messagesPerSecond`, 40 by default), over which the
   * relay closes the socket 1008. Unset: no pacing.
   */
  maxPerSecond?: number;
  onAck?: (ack: RelayAck) => void;
  /**
   * The room's write sockets on the relay node, this one included (its `joined` and each ack say
   * it; relays of an earlier version do not): more than 1, another publisher writes there too.
   */
  onWriters?: (writers: number) => void;
  /** Called whenever the number of unacked captions changes. */
  onQueue?: (queued: number) => void;
}

/**
 * The caption with its strings cleaned to the caption text rule (`@live-captions/protocol`), which
 * the relay enforces by closing the socket: a NUL from a speech engine or a pasted control
 * character must not stop a capture page or an editor from publishing.
 */
function cleaned(caption: CaptionInput): CaptionInput {
  const out: Record<string, unknown> = { ...caption };
  for (const field of ['final', 'interm', 'id', 'label', 'ln'] as const) {
    const value = out[field];
    if (typeof value === 'string') out[field] = cleanCaptionText(value);
  }
  return out as CaptionInput;
}

function randomClientId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Publishes captions to a room with the write token: one caption in flight, resent with the same
 * delivery identity until acked (also across reconnects), the rest queued (bounded).
 */
/**
 * The window `maxPerSecond` counts in: a second and a margin, because the relay counts frames when
 * they arrive, and a first frame held up on the way (a busy event loop at either end) lets the
 * next ones arrive closer together than they were sent.
 */
const PACE_WINDOW_MS = 1100;

export class RelayPublisher extends RelayConnection<RelayPublisherOptions> {
  readonly clientId: string;
  private readonly queue: RelayPublish[] = [];
  private sequence = 0;
  private inFlight?: RelayPublish;
  private ackTimer?: ReturnType<typeof setTimeout>;
  private paceTimer?: ReturnType<typeof setTimeout>;
  /** Send times of the last `maxPerSecond` frames (pacing: none more within a second). */
  private readonly sent: number[] = [];

  constructor(options: RelayPublisherOptions) {
    super(options);
    this.clientId = options.clientId ?? randomClientId();
    this.start();
  }

  /** Unacked captions, the one in flight included. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * The unacked captions as sent, with their delivery identities: a page keeps them through a
   * reload and publishes them again with the same identities (`publish(caption, delivery)`), so
   * that the relay takes each at most once.
   */
  get unacked(): readonly RelayPublish[] {
    return this.queue.map((caption) => ({ ...caption }));
  }

  /**
   * Queues a caption, its strings cleaned to the caption text rule; `false` (nothing queued) when
   * `maxQueue` captions are still unacked.
   * `delivery`: an identity the caller fixed (and stored before this first attempt), so that the
   * same caption sent again after a restart, or by another process, counts once at the relay;
   * default: this publisher's `clientId` and its next sequence.
   */
  publish(caption: CaptionInput, delivery?: RelayDelivery): boolean {
    if (this.queue.length >= (this.options.maxQueue ?? 100)) return false;
    if (!delivery) {
      this.sequence += 1;
      delivery = { client: this.clientId, sequence: this.sequence };
    }
    this.queue.push({ msg: true, ...cleaned(caption), delivery } as RelayPublish);
    this.options.onQueue?.(this.queue.length);
    this.flush();
    return true;
  }

  override close(): void {
    clearTimeout(this.ackTimer);
    clearTimeout(this.paceTimer);
    super.close();
  }

  protected joinFrame(): RelayJoin {
    return {
      protocol: RELAY_PROTOCOL,
      join: this.options.room,
      role: 'write',
      token: this.options.token,
      beat: true,
    };
  }

  protected onJoined(joined: RelayJoined): void {
    if (joined.writers !== undefined) this.options.onWriters?.(joined.writers);
    this.inFlight = undefined;
    this.flush();
  }

  protected onFrame(frame: RelayServerFrame): void {
    if (!('ack' in frame)) return;
    const head = this.inFlight;
    if (!head || frame.ack.client !== head.delivery.client || frame.ack.sequence !== head.delivery.sequence)
      return;
    clearTimeout(this.ackTimer);
    this.queue.shift();
    this.inFlight = undefined;
    if (frame.writers !== undefined) this.options.onWriters?.(frame.writers);
    this.options.onAck?.(frame);
    this.options.onQueue?.(this.queue.length);
    this.flush();
  }

  protected override onDisconnected(): void {
    clearTimeout(this.ackTimer);
    this.inFlight = undefined;
  }

  private flush(): void {
    const head = this.queue[0];
    if (this.inFlight || !head) return;
    if (!this.paced(() => this.flush())) return;
    if (!this.sendFrame(head)) return;
    this.sent.push(Date.now());
    this.inFlight = head;
    this.armAckTimer(head);
  }

  private armAckTimer(caption: RelayPublish): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = setTimeout(() => this.resend(caption), this.options.ackTimeoutMs ?? 3000);
  }

  private resend(caption: RelayPublish): void {
    if (this.inFlight !== caption) return;
    if (!this.paced(() => this.resend(caption))) return;
    // Same delivery identity: the relay acks a duplicate without a second fan-out.
    if (!this.sendFrame(caption)) return;
    this.sent.push(Date.now());
    this.armAckTimer(caption);
  }

  /** True when a frame may leave now; else `later` is scheduled for when one may. */
  private paced(later: () => void): boolean {
    const max = this.options.maxPerSecond;
    if (max === undefined) return true;
    const now = Date.now();
    while (this.sent.length > 0 && (this.sent[0] ?? 0) <= now - PACE_WINDOW_MS) this.sent.shift();
    if (this.sent.length < max) return true;
    clearTimeout(this.paceTimer);
    this.paceTimer = setTimeout(later, (this.sent[0] ?? now) + PACE_WINDOW_MS - now + 1);
    return false;
  }
}
