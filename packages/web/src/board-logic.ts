/**
 * The rooms board's rule for "the speech workers are the bottleneck" without a DOM, for Node
 * harnesses that watch a conference as the board would: `pnpm bench conference` reports when the
 * board would have said it. Only from sources (the `@live-captions/source` condition), as
 * capture-logic.
 */
export {
  isWorkersHealth,
  LATE_SECONDS,
  type WorkersHealth,
  WorkersWatch,
} from './browser/lib/workers-watch.js';
