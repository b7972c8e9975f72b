/// <reference lib="dom" />
/**
 * The rooms board's status at a glance: every few seconds while the page is visible, asks the
 * services (lib/board-feeds.ts) and gives each row its status (lib/room-status.ts), the board its
 * summary ("2 of 40 rooms need attention: …") and the speech workers' line. The summary is a
 * polite live region whose text changes only when the rooms in trouble do, so a refresh is not
 * read out again; the workers' figures change every refresh, so only their change of state (the
 * bottleneck appearing or gone) goes to a live region of its own.
 */
import type { CaptionRoom } from '@live-captions/protocol';
import { type BoardAddresses, type BoardFeeds, readBoardFeeds } from '../lib/board-feeds.js';
import { byId, setStatus } from '../lib/dom.js';
import { boardSummary, PublisherWatch, type RoomOutputs, roomStatus } from '../lib/room-status.js';
import { WorkersWatch } from '../lib/workers-watch.js';
import type { RoomRow } from './links-room-row.js';

const REFRESH_MS = 5000;
/**
 * Every service learns a new room within 2 s (its watch over the relay's rooms): a room that
 * appears while the board runs is asked of the outputs service after that, not while it would
 * still refuse its token (a 401 the browser reports as an error).
 */
const NEW_ROOM_SETTLE_MS = 2500;
/** The outputs service is asked every this many refreshes: two requests per room each time. */
const OUTPUTS_EVERY = 2;

export interface BoardStatusInputs {
  addresses(): BoardAddresses | undefined;
  rooms(): readonly CaptionRoom[];
  row(id: string): RoomRow | undefined;
}

const board = {
  summary: byId('rooms-summary'),
  workers: byId('workers-status'),
  workersNews: byId('workers-news'),
};

function setText(node: HTMLElement, text: string): void {
  if (node.textContent !== text) node.textContent = text;
}

export function startBoardStatus(inputs: BoardStatusInputs): { refresh(): void } {
  const publishers = new PublisherWatch();
  const workers = new WorkersWatch();
  let outputs: Map<string, RoomOutputs> | undefined;
  let bottleneck = false;
  let round = 0;
  let busy = false;

  function show(feeds: BoardFeeds, now: number): void {
    const troubled: string[] = [];
    const rooms = inputs.rooms();
    for (const room of rooms) {
      const activity = feeds.activity?.get(room.id);
      const status = roomStatus({
        activity,
        sources: feeds.sources ? (feeds.sources.get(room.sourceRoom) ?? []) : undefined,
        outputs: outputs?.get(room.id),
        publisherSince: publishers.seen(room.id, activity?.source.publishers, now),
        now,
      });
      inputs.row(room.id)?.status(status);
      if (status.trouble.length > 0) troubled.push(room.name);
    }
    const summary = boardSummary(rooms.length, troubled);
    setText(board.summary, summary);
    board.summary.dataset.tone = troubled.length > 0 ? 'error' : 'ok';
    const state = workers.next(feeds.workers, feeds.sources && [...feeds.sources.values()].flat());
    setStatus(board.workers, state.line, state.bottleneck ? 'error' : 'idle');
    board.workers.hidden = !inputs.addresses()?.captureUrl;
    if (state.bottleneck !== bottleneck) {
      bottleneck = state.bottleneck;
      setText(
        board.workersNews,
        bottleneck ? 'Speech workers are the bottleneck' : 'Speech workers keep up again',
      );
    }
  }

  /** When each room was first listed; the rooms of the first list the board gets count as settled. */
  const firstSeen = new Map<string, number>();
  let started = false;
  function settledRooms(now: number): CaptionRoom[] {
    const rooms = inputs.rooms();
    for (const room of rooms)
      if (!firstSeen.has(room.id)) firstSeen.set(room.id, started ? now : Number.NEGATIVE_INFINITY);
    if (rooms.length > 0) started = true;
    return rooms.filter((room) => now - firstSeen.get(room.id)! >= NEW_ROOM_SETTLE_MS);
  }

  async function refresh(): Promise<void> {
    const to = inputs.addresses();
    if (!to) {
      setText(board.summary, '');
      board.workers.hidden = true;
      return;
    }
    if (busy) return;
    busy = true;
    try {
      const withOutputs = round % OUTPUTS_EVERY === 0;
      round += 1;
      const feeds = await readBoardFeeds(to, settledRooms(Date.now()), withOutputs);
      // Kept between the refreshes that skip the outputs service; unknown when it did not answer.
      if (withOutputs) outputs = to.outputsUrl ? feeds.outputs : undefined;
      show(feeds, Date.now());
    } finally {
      busy = false;
    }
  }

  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, REFRESH_MS);
  return { refresh: () => void refresh() };
}
