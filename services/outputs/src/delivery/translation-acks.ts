/**
 * The frames a translator handed to its publisher and not yet marked done, by delivery sequence.
 * Each relay ack marks its frame published in the database (one at a time, in the order the acks
 * came), counts it and, for a caption's own translation, observes its latency. A database failure
 * leaves the frame pending: it goes out again with the same identity, and the relay acks a
 * duplicate without a second fan-out.
 */
import type { OutputsMetrics } from '../adapters/metrics.js';
import type { TranslationsRepo } from '../adapters/translations-repo.js';

export class TranslationAcks {
  private readonly handed = new Map<number, { own: boolean; at: number }>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly translation: { id: string; target: string },
    private readonly deps: { translations: TranslationsRepo; metrics: OutputsMetrics },
    /** A frame left the publisher (done or to go again): room for more. */
    private readonly freed: () => void,
  ) {}

  /** The publisher has this frame already. */
  has(sequence: number): boolean {
    return this.handed.has(sequence);
  }

  /** Handed to the publisher: `own` when it is the translation of its caption itself, `at` its arrival. */
  add(sequence: number, frame: { own: boolean; at: number }): void {
    this.handed.set(sequence, frame);
  }

  /** The relay took frame `sequence`: done once stored as done. */
  acked(sequence: number): void {
    const frame = this.handed.get(sequence);
    if (!frame) return;
    const { id, target } = this.translation;
    this.chain = this.chain.then(async () => {
      try {
        if (await this.deps.translations.published(id, sequence)) {
          this.deps.metrics.translated.inc({ target });
          if (frame.own)
            this.deps.metrics.translationLatency.observe({ target }, (Date.now() - frame.at) / 1000);
        }
      } catch {
        // The database failed: the frame stays pending (see above).
      } finally {
        this.handed.delete(sequence);
        this.freed();
      }
    });
  }

  /** Resolves once every ack so far is stored (or failed to be). */
  settled(): Promise<void> {
    return this.chain;
  }
}
