/// <reference lib="dom" />
/**
 * Audience page (phones in the room): reads the output room with the read token from the link's
 * fragment, shows the session so far (the relay's history, replayed by joining with a cursor) and
 * then live captions, large and in the reader's chosen size and colours. After a reconnect the
 * reader resumes with its cursor, and a caption with an id already shown replaces it, so nothing
 * is shown twice.
 *
 * A reload loses nothing: the tab keeps the link (reader-link.ts), and the captions shown with the
 * cursor they were shown up to (tab-keep.ts); the page shows them again and resumes from that
 * cursor.
 *
 * A page opened without a kept cursor is replayed the last REPLAY_MS (2 minutes, what readers
 * got when that was the relay's whole history) of the session: the relay now keeps 30 minutes for
 * readers that must lose nothing (outputs), which a phone joining late need not be sent. Once
 * joined, the page resumes by its cursor after any outage or reload and gets everything since,
 * as far back as the relay still holds.
 */
import type { RelayCursor } from '@live-captions/protocol';
import { RelayReader } from '@live-captions/relay-client';
import { type AudienceLine, audienceLine } from '../lib/audience-status.js';
import { AudienceTranscript, type KeptCaption } from '../lib/audience-transcript.js';
import { byId, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { LinkWatch } from '../lib/link-watch.js';
import { readParams } from '../lib/params.js';
import { readerLink, tabStorage } from '../lib/reader-link.js';
import { TabKeep } from '../lib/tab-keep.js';
import { AudienceControls } from './audience-controls.js';
import { AudienceLanguage } from './audience-language.js';
import { AudienceView } from './audience-view.js';

/** What a first join replays: the session's last 2 minutes (the relay holds 30). */
const REPLAY_MS = 2 * 60_000;
/** Captions the tab keeps for a reload (the newest; the page itself holds up to 3,000). */
const KEPT_CAPTIONS = 1500;
/** How long "some captions were missed" stays on the status line before it says "Live" again. */
const NOTICE_MS = 10_000;

interface KeptSession {
  room: string;
  cursor: RelayCursor;
  captions: KeptCaption[];
}

const status = byId('audience-status');
const params = readParams(location.href);
stripTokensFromAddress(params.cleanUrl, params.hadTokens);

const model = new AudienceTranscript();
new AudienceControls((change) => view.keepingLive(change));
const language = new AudienceLanguage(
  () => view.renderAll(),
  (change) => view.keepingLive(change),
);
const view = new AudienceView(
  model,
  byId('audience-empty'),
  byId<HTMLButtonElement>('jump-live'),
  byId('announcer'),
  () => language.shown,
);

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
function showLine(line: AudienceLine): void {
  if (status.textContent !== line.text) status.textContent = line.text;
  status.dataset.state = line.state;
  document.body.dataset.relay = line.state;
  clearTimeout(noticeTimer);
  // A notice (captions missed) clears itself: the line goes back to plain "Live".
  if (line.notice) noticeTimer = setTimeout(() => showLine(audienceLine(watch.state)), NOTICE_MS);
}

const watch = new LinkWatch();
const link = readerLink('audience', params.get, tabStorage(), siteConfig().relayUrl ?? undefined);
if (!link) {
  byId('audience-help').hidden = false;
  byId('audience-empty').hidden = true;
  showLine({ state: 'unconfigured', text: 'No captions link' });
} else {
  language.useRoom(link.room, params.get('ln'));
  const keep = new TabKeep<KeptSession>(`live-captions.audience.${link.room}`);
  const kept = keep.load();
  let cursor: RelayCursor | undefined;
  if (kept?.room === link.room && kept.cursor && Array.isArray(kept.captions)) {
    model.restore(kept.captions);
    language.offer(model.tracks);
    view.renderAll();
    cursor = kept.cursor;
    document.body.dataset.restored = String(model.size);
  }
  const reader: RelayReader = new RelayReader({
    url: link.url,
    room: link.room,
    token: link.token,
    cursor,
    // Only a first load (no cursor) is bounded; a kept cursor resumes with everything since.
    ...(cursor ? {} : { replayMs: REPLAY_MS }),
    onCaption: (caption) => {
      const change = model.apply(caption);
      if (language.offer(model.tracks)) view.renderAll();
      view.apply(change);
      // The reader's cursor is the caption just applied: kept with what it shows, together.
      keep.save(() => ({
        room: link.room,
        cursor: reader.cursor ?? caption.relay,
        captions: model.kept(KEPT_CAPTIONS),
      }));
    },
    onState: (event) => {
      // Joined once, the reader has a cursor: later joins resume from it with everything since.
      if (event.state === 'joined') reader.replayMs = undefined;
      if (watch.apply(event, Date.now())) showLine(audienceLine(watch.state));
    },
    onGap: ({ gap }) => {
      document.body.dataset.gap = gap;
      showLine(audienceLine(watch.state, gap));
    },
  });
}
