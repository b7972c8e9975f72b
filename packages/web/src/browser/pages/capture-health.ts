/// <reference lib="dom" />
/**
 * The capture page's header: the speech gateway's real state, polled on `/health` every few
 * seconds for as long as the page is open (a green "Ready" while the gateway is down would lie),
 * and which transport is in use and why.
 */
import type { SpeechHealth } from '@live-captions/protocol';
import { setStatus } from '../lib/dom.js';
import type { Transport } from '../lib/transport.js';

const POLL_MS = 5_000;
const DOWN_POLL_MS = 2_000;

export type HealthAnswer =
  | { kind: 'ready'; health: SpeechHealth }
  | { kind: 'unauthorized' }
  | { kind: 'loading' }
  | { kind: 'unreachable' };

/** One look at `/health`. */
export async function checkHealth(url: URL, headers: Record<string, string>): Promise<HealthAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { headers, cache: 'no-store' });
  } catch {
    return { kind: 'unreachable' };
  }
  if (response.status === 401) return { kind: 'unauthorized' };
  // 502/504 come from a proxy in front of a gateway that is down.
  if (response.status === 502 || response.status === 504) return { kind: 'unreachable' };
  if (!response.ok) return { kind: 'loading' };
  return { kind: 'ready', health: (await response.json()) as SpeechHealth };
}

/** The header's line for an answer; `capturing`: the page is capturing (its audio is kept). */
export function showHealth(element: HTMLElement, answer: HealthAnswer, capturing: boolean): void {
  const kept = capturing ? '; capture carries on and sends the kept audio when it is back' : '';
  switch (answer.kind) {
    case 'ready':
      setStatus(element, `Ready · model ${answer.health.model} on ${answer.health.device}`, 'ok');
      break;
    case 'unauthorized':
      setStatus(element, 'This speech service needs its access token (under Publishing).', 'warn');
      break;
    case 'loading':
      setStatus(element, `Speech service is loading or busy; checking again…${kept}`, 'busy');
      break;
    case 'unreachable':
      setStatus(element, `Speech service unreachable; checking again…${kept}`, 'error');
      break;
  }
}

/** Delay before the next look: sooner while the gateway is not ready. */
export function nextPollMs(answer: HealthAnswer): number {
  return answer.kind === 'ready' ? POLL_MS : DOWN_POLL_MS;
}

/** "Transport: rolling windows (from the link)". */
export type TransportSource = 'link' | 'saved' | 'default' | 'chosen';

const WHY: Record<TransportSource, string> = {
  link: 'from the link',
  saved: 'your last choice on this device',
  default: 'the default',
  chosen: 'chosen here',
};

/** `unavailable`: Realtime was asked for (link or last choice) but the gateway cannot serve it. */
export function transportLine(transport: Transport, source: TransportSource, unavailable?: string): string {
  const name = transport === 'realtime' ? 'realtime (WebSocket)' : 'rolling windows';
  if (unavailable) return `Transport: ${name} (realtime was asked for but is unavailable: ${unavailable})`;
  return `Transport: ${name} (${WHY[source]})`;
}

/** The gateway's reason Realtime cannot be used now, or undefined when it can (or is not known yet). */
export function realtimeUnavailable(health: SpeechHealth | undefined): string | undefined {
  const realtime = health?.realtime;
  return realtime && !realtime.available ? realtime.reason : undefined;
}
