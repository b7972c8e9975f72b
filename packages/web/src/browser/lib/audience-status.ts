/**
 * The audience page's status line (pure): one short line that fits a phone's header beside the
 * title and the Display button, whatever happens. The longer story (why, since when) is not for
 * readers: they only need to know whether what they see is live.
 */
import type { RelayGapReason } from '@live-captions/protocol';
import type { LinkState } from './link-watch.js';

export interface AudienceLine {
  /** `body[data-relay]` and the line's `data-state`: connecting, joined, lost, stopped, unconfigured. */
  state: string;
  text: string;
  /** A notice that clears itself after a while (captions were missed): the line then says "Live". */
  notice?: true;
}

export function audienceLine(link: LinkState, gap?: RelayGapReason): AudienceLine {
  switch (link.view) {
    case 'connecting':
      return { state: 'connecting', text: 'Connecting…' };
    case 'lost':
      return { state: 'lost', text: 'Reconnecting…' };
    case 'stopped':
      return { state: 'stopped', text: 'Link no longer works' };
    case 'joined':
      return gap
        ? { state: 'joined', text: 'Live · some captions missed', notice: true }
        : { state: 'joined', text: 'Live' };
  }
}
