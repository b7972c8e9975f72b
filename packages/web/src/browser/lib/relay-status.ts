/// <reference lib="dom" />
/** Relay connection states on the pages' status lines. */
import {
  type RelayClientEvent,
  RelayPublisher,
  type RelayPublisherOptions,
} from '@live-captions/relay-client';
import { setStatus } from './dom.js';

/** `name: state (reason)extra`, toned by the state. */
export function showRelayState(
  element: HTMLElement,
  name: string,
  event: RelayClientEvent,
  extra = '',
): void {
  const tone = event.state === 'joined' ? 'ok' : event.state === 'stopped' ? 'error' : 'busy';
  const reason = event.state === 'stopped' && event.reason ? ` (${event.reason})` : '';
  setStatus(element, `${name}: ${event.state}${reason}${extra}`, tone);
}

/** A publisher whose state and unacked count are shown on `element` as `name: state; queued n`. */
export function publisherWithStatus(
  options: Omit<RelayPublisherOptions, 'onState' | 'onQueue'>,
  element: HTMLElement,
  name: string,
): RelayPublisher {
  // The constructor already reports `connecting`, before `created` is assigned.
  let created: RelayPublisher | undefined;
  created = new RelayPublisher({
    ...options,
    onState: (event) => showRelayState(element, name, event, `; queued ${created?.queued ?? 0}`),
    onQueue: (queued) =>
      showRelayState(element, name, { state: created?.state ?? 'connecting' }, `; queued ${queued}`),
  });
  return created;
}
