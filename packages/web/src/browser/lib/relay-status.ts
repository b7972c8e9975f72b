/// <reference lib="dom" />
/**
 * Relay links on the operator pages' status lines: one steady line per link (link-watch.ts), so
 * that an outage reads "reconnecting since 14:03:05 (why)" from the first failure until the link
 * is back, instead of changing at every attempt. The element's `data-link` carries the view
 * (`connecting`, `joined`, `lost`, `stopped`) for styles and tests.
 */
import {
  type RelayClientEvent,
  RelayPublisher,
  type RelayPublisherOptions,
} from '@live-captions/relay-client';
import { setStatus } from './dom.js';
import { type LinkState, LinkWatch, operatorLine } from './link-watch.js';

const TONES = { connecting: 'busy', joined: 'ok', lost: 'warn', stopped: 'error' } as const;

function show(element: HTMLElement, name: string, state: LinkState, extra: string): void {
  const text = `${operatorLine(name, state)}${extra}`;
  // Rewritten only when it changes: a status line is announced by screen readers.
  if (element.textContent !== text || element.dataset.link !== state.view) {
    setStatus(element, text, TONES[state.view]);
    element.dataset.link = state.view;
  }
}

/** A status line following one relay client's events: `link.event` takes them. */
export function relayLine(element: HTMLElement, name: string) {
  const watch = new LinkWatch();
  let extra = '';
  show(element, name, watch.state, extra);
  return {
    get state(): LinkState {
      return watch.state;
    },
    event(event: RelayClientEvent): void {
      watch.apply(event, Date.now());
      show(element, name, watch.state, extra);
    },
    /** Text after the link's state (e.g. `; queued 2`). */
    extra(text: string): void {
      extra = text;
      show(element, name, watch.state, extra);
    },
  };
}

/** A publisher whose link and unacked count are shown on `element` as `name: state; queued n`. */
export function publisherWithStatus(
  options: Omit<RelayPublisherOptions, 'onState' | 'onQueue'>,
  element: HTMLElement,
  name: string,
  onQueue?: (queued: number) => void,
): RelayPublisher {
  const line = relayLine(element, name);
  line.extra('; queued 0');
  // The constructor already reports `connecting`, before `created` is assigned.
  let created: RelayPublisher | undefined;
  created = new RelayPublisher({
    ...options,
    onState: (event) => {
      line.extra(`; queued ${created?.queued ?? 0}`);
      line.event(event);
    },
    onQueue: (queued) => {
      line.extra(`; queued ${queued}`);
      onQueue?.(queued);
    },
  });
  return created;
}
