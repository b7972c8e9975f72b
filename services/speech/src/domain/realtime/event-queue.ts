/**
 * The client events of a realtime session on their way to their handlers: in the order they
 * came, and every one but an append only once the VAD has scored all the audio appended before
 * it. The VAD answers later, from its own thread, and a commit or clear handled before that would
 * leave its turns to open afterwards, from audio already committed or cleared, with nothing to
 * close them. A commit thus commits exactly the audio appended before it, and audio appended
 * after it waits behind it.
 */
import { type ClientEvent, isProblem, type RealtimeProblem } from './events.js';

export type SessionUpdate = Extract<ClientEvent, { type: 'session.update' | 'transcription_session.update' }>;

/** What the session does with each client event (a problem is answered with an `error`). */
export interface ClientEventHandlers {
  update(event: SessionUpdate): void;
  append(audio: Buffer, eventId: string | null): void;
  commit(eventId: string | null): void;
  clear(eventId: string | null): void;
  fail(value: RealtimeProblem): void;
}

export class ClientEventQueue {
  /** Client events not handled yet, in arrival order. */
  private waiting: (ClientEvent | RealtimeProblem)[] = [];
  private stopped = false;

  constructor(
    /** The VAD has scored every whole frame of the audio appended so far. */
    private readonly caughtUp: () => boolean,
    private readonly handlers: ClientEventHandlers,
  ) {}

  push(event: ClientEvent | RealtimeProblem): void {
    this.waiting.push(event);
    this.drain();
  }

  /** Handles the events that may go now; called again each time the VAD settles. */
  drain(): void {
    while (this.waiting.length > 0 && !this.stopped) {
      const event = this.waiting[0]!;
      const append = !isProblem(event) && event.type === 'input_audio_buffer.append';
      if (!append && !this.caughtUp()) return;
      this.waiting.shift();
      if (isProblem(event)) this.handlers.fail(event);
      else this.dispatch(event);
    }
  }

  /** The client is gone: what waits is dropped, and nothing more is handled. */
  stop(): void {
    this.stopped = true;
    this.waiting = [];
  }

  private dispatch(event: ClientEvent): void {
    switch (event.type) {
      case 'session.update':
      case 'transcription_session.update':
        this.handlers.update(event);
        break;
      case 'input_audio_buffer.append':
        this.handlers.append(event.audio, event.eventId);
        break;
      case 'input_audio_buffer.commit':
        this.handlers.commit(event.eventId);
        break;
      case 'input_audio_buffer.clear':
        this.handlers.clear(event.eventId);
        break;
    }
  }
}
