import {
  RELAY_PROTOCOL,
  type RelayAck,
  type RelayCaptionFields,
  type RelayDelivery,
  type RelayJoin,
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
  onAck?: (ack: RelayAck) => void;
  /** Called whenever the number of unacked captions changes. */
  onQueue?: (queued: number) => void;
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
export class RelayPublisher extends RelayConnection<RelayPublisherOptions> {
  readonly clientId: string;
  private readonly queue: RelayPublish[] = [];
  private sequence = 0;
  private inFlight?: RelayPublish;
  private ackTimer?: ReturnType<typeof setTimeout>;

  constructor(options: RelayPublisherOptions) {
    super(options);
    this.clientId = options.clientId ?? randomClientId();
    this.start();
  }

  /** Unacked captions, the one in flight included. */
  get queued(): number {
    return this.queue.length;
  }

  /** Queues a caption; `false` (nothing queued) when `maxQueue` captions are still unacked. */
  publish(caption: CaptionInput): boolean {
    if (this.queue.length >= (this.options.maxQueue ?? 100)) return false;
    this.sequence += 1;
    const delivery: RelayDelivery = { client: this.clientId, sequence: this.sequence };
    this.queue.push({ msg: true, ...caption, delivery } as RelayPublish);
    this.options.onQueue?.(this.queue.length);
    this.flush();
    return true;
  }

  override close(): void {
    clearTimeout(this.ackTimer);
    super.close();
  }

  protected joinFrame(): RelayJoin {
    return { protocol: RELAY_PROTOCOL, join: this.options.room, role: 'write', token: this.options.token };
  }

  protected onJoined(): void {
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
    if (!this.sendFrame(head)) return;
    this.inFlight = head;
    this.armAckTimer(head);
  }

  private armAckTimer(caption: RelayPublish): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = setTimeout(() => {
      if (this.inFlight !== caption) return;
      // Same delivery identity: the relay acks a duplicate without a second fan-out.
      if (this.sendFrame(caption)) this.armAckTimer(caption);
    }, this.options.ackTimeoutMs ?? 3000);
  }
}
