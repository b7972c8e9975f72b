/**
 * What the realtime transport shows and publishes, from the server's events (pure): one item per
 * utterance, keyed by `item_id`. `delta` events carry only the new suffix of an item's text, so
 * the partial text is their concatenation; `completed` carries the final transcript, which
 * replaces it. Finals are released in the order the utterances were spoken even when the server
 * completes a later item first, so captions never reach the relay out of order.
 */

/** The server events this module reads (OpenAI Realtime API, transcription intent). */
export type RealtimeServerEvent =
  | { type: 'input_audio_buffer.speech_started'; item_id: string; audio_start_ms: number }
  | { type: 'input_audio_buffer.speech_stopped'; item_id: string; audio_end_ms: number }
  | { type: 'input_audio_buffer.committed'; item_id: string; previous_item_id?: string | null }
  | { type: 'input_audio_buffer.cleared' }
  | { type: 'conversation.item.input_audio_transcription.delta'; item_id: string; delta: string }
  | {
      type: 'conversation.item.input_audio_transcription.completed';
      item_id: string;
      transcript: string;
      /** Our gateway's extension: a guard cut text from the turn. */
      trimmed?: boolean;
    }
  | {
      type: 'conversation.item.input_audio_transcription.failed';
      item_id: string;
      error?: { message?: string; code?: string | null };
    }
  | { type: 'error'; error: RealtimeError }
  | { type: string; [key: string]: unknown };

/** OpenAI's error object. */
export interface RealtimeError {
  type?: string;
  code?: string | null;
  message?: string;
  param?: string | null;
  event_id?: string | null;
}

export interface RealtimeFinal {
  itemId: string;
  /** The final transcript, trimmed; never empty. */
  text: string;
  /** Where the utterance starts and ends in the connection's audio, when the server said. */
  audioStartMs?: number;
  audioEndMs?: number;
  /** A guard cut hallucinated or repeated text from it (the gateway's `trimmed`). */
  trimmed?: true;
}

interface Item {
  id: string;
  text: string;
  committed: boolean;
  done: boolean;
  final?: string;
  trimmed?: true;
  audioStartMs?: number;
  audioEndMs?: number;
}

export class RealtimeTranscripts {
  /** Items in the order they were spoken (first event seen). */
  private items: Item[] = [];
  private failures: string[] = [];
  /** Items already released: late events about them are ignored. */
  private released = new Set<string>();

  /** Applies one server event; returns whether the partial text or the finals changed. */
  apply(event: RealtimeServerEvent): boolean {
    const e = event as Record<string, unknown> & { type: string };
    const id = typeof e.item_id === 'string' ? e.item_id : undefined;
    if (e.type === 'input_audio_buffer.cleared') return this.dropOpen();
    if (id === undefined || this.released.has(id)) return false;
    switch (e.type) {
      case 'input_audio_buffer.speech_started':
        this.item(id).audioStartMs = Number(e.audio_start_ms);
        return false;
      case 'input_audio_buffer.speech_stopped':
        this.item(id).audioEndMs = Number(e.audio_end_ms);
        return false;
      case 'input_audio_buffer.committed': {
        this.item(id).committed = true;
        // Utterances begun before this one and never committed were dropped by the server.
        const index = this.items.findIndex((item) => item.id === id);
        this.items = this.items.filter((item, at) => at >= index || item.committed);
        return true;
      }
      case 'conversation.item.input_audio_transcription.delta':
        if (typeof e.delta !== 'string') return false;
        if (this.find(id)?.done) return false;
        this.item(id).text += e.delta;
        return true;
      case 'conversation.item.input_audio_transcription.completed': {
        const item = this.item(id);
        item.done = item.committed = true;
        item.final = typeof e.transcript === 'string' ? e.transcript : item.text;
        if (e.trimmed === true) item.trimmed = true;
        return true;
      }
      case 'conversation.item.input_audio_transcription.failed': {
        const item = this.item(id);
        item.done = item.committed = true;
        const error = e.error as RealtimeError | undefined;
        this.failures.push(error?.message ?? 'transcription failed');
        return true;
      }
      default:
        return false;
    }
  }

  /** Text of the utterances not final yet, in spoken order (what the page shows as partial). */
  get partial(): string {
    return this.items
      .filter((item) => !item.done)
      .map((item) => item.text.trim())
      .filter(Boolean)
      .join(' ');
  }

  /** Committed utterances whose transcript has not arrived yet. */
  get pending(): number {
    return this.items.filter((item) => item.committed && !item.done).length;
  }

  /** An utterance is being spoken (started, not yet committed). */
  get speaking(): boolean {
    return this.items.some((item) => !item.committed && !item.done);
  }

  /** Where the earliest unfinished utterance starts (ms of the connection's audio), if any. */
  get unfinishedFromMs(): number | undefined {
    const starts = this.items.filter((item) => !item.done).map((item) => item.audioStartMs ?? 0);
    return starts.length > 0 ? Math.min(...starts) : undefined;
  }

  /** Finals ready for the relay, each once, in spoken order (a pending earlier item holds them). */
  takeFinals(): RealtimeFinal[] {
    const out: RealtimeFinal[] = [];
    while (this.items[0]?.done) {
      const item = this.items.shift()!;
      this.released.add(item.id);
      const text = item.final?.trim();
      if (!text) continue;
      out.push({
        itemId: item.id,
        text,
        ...(item.audioStartMs !== undefined ? { audioStartMs: item.audioStartMs } : {}),
        ...(item.audioEndMs !== undefined ? { audioEndMs: item.audioEndMs } : {}),
        ...(item.trimmed ? { trimmed: true as const } : {}),
      });
    }
    return out;
  }

  /** Messages of `failed` items since the last call. */
  takeFailures(): string[] {
    return this.failures.splice(0);
  }

  /** Forgets the utterance being spoken (not committed); returns whether there was one. */
  dropOpen(): boolean {
    const before = this.items.length;
    this.items = this.items.filter((item) => item.committed);
    return this.items.length !== before;
  }

  /** Forgets every unfinished utterance (the connection that would have finished them is gone). */
  dropUnfinished(): void {
    this.items = this.items.filter((item) => item.done);
  }

  private find(id: string): Item | undefined {
    return this.items.find((item) => item.id === id);
  }

  private item(id: string): Item {
    let item = this.find(id);
    if (!item) {
      item = { id, text: '', committed: false, done: false };
      this.items.push(item);
    }
    return item;
  }
}
