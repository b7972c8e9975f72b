/**
 * A page's link to the relay as its reader or operator should see it (pure): steady through the
 * reconnect cycle. The relay client reports every attempt (`waiting`, `connecting`, `waiting`…),
 * which shown as such makes a notice blink at every retry; here one loss is one `lost` view
 * until the link is back, with the time it was lost and why (the first reason: the attempts
 * after it are the client's business).
 *
 * Views: `connecting` (before the first join), `joined`, `lost` (was joined or tried, retrying by
 * itself), `stopped` (refused: a wrong or old token; nothing is retried).
 */
import type { RelayClientEvent } from '@live-captions/relay-client';

export type LinkView = 'connecting' | 'joined' | 'lost' | 'stopped';

export interface LinkState {
  view: LinkView;
  /** When the link was lost (view `lost`). */
  since?: number;
  /** Why it was lost or refused, as the client said it (close reason, silence). */
  reason?: string;
  code?: number;
}

export class LinkWatch {
  state: LinkState = { view: 'connecting' };

  /** Takes a client event; returns whether the view (or its reason) changed. */
  apply(event: RelayClientEvent, now: number): boolean {
    const before = this.state;
    switch (event.state) {
      case 'joined':
        this.state = { view: 'joined' };
        break;
      case 'stopped':
        this.state = { view: 'stopped', ...why(event) };
        break;
      case 'waiting':
        // The first failure is the news; later attempts' failures are the same outage.
        if (before.view !== 'lost') this.state = { view: 'lost', since: now, ...why(event) };
        break;
      case 'connecting':
        // A reconnect attempt changes nothing the reader needs to know.
        break;
      case 'closed':
        break;
    }
    return (
      before.view !== this.state.view ||
      before.reason !== this.state.reason ||
      before.since !== this.state.since
    );
  }
}

function why(event: RelayClientEvent): Pick<LinkState, 'reason' | 'code'> {
  return {
    ...(event.reason ? { reason: event.reason } : {}),
    ...(event.code !== undefined ? { code: event.code } : {}),
  };
}

/** `14:03:05`: when a link was lost, on the operator's clock. */
export function clockTime(at: number): string {
  const time = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}`;
}

/**
 * An operator's status line for a link: `Source: joined`, `Source: reconnecting since 14:03:05
 * (no word from the relay for 4.1 s)`, `Source: refused (Invalid room or token)`.
 */
export function operatorLine(name: string, state: LinkState): string {
  const reason = state.reason ? ` (${state.reason.charAt(0).toLowerCase()}${state.reason.slice(1)})` : '';
  switch (state.view) {
    case 'connecting':
      return `${name}: connecting`;
    case 'joined':
      return `${name}: joined`;
    case 'lost':
      return `${name}: reconnecting since ${clockTime(state.since ?? 0)}${reason || ' (connection lost)'}`;
    case 'stopped':
      return `${name}: refused${reason}`;
  }
}
