/// <reference lib="dom" />
/**
 * Audience page (phones in the room): reads the output room with the read token from the link's
 * fragment, shows the session so far (the relay's history, replayed by joining with a cursor) and
 * then live captions, large and in the reader's chosen size and colours. After a reconnect the
 * reader resumes with its cursor, and a caption with an id already shown replaces it, so nothing
 * is shown twice.
 */
import { RelayReader } from '@live-captions/relay-client';
import { AudienceTranscript } from '../lib/audience-transcript.js';
import { byId, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { isRelayUrl, readParams } from '../lib/params.js';
import { AudienceControls } from './audience-controls.js';
import { AudienceView } from './audience-view.js';

/**
 * A cursor of no epoch: the relay answers it as a relay restart and replays everything it still
 * holds (the session so far), which a fresh join would not.
 */
const WHOLE_HISTORY = { epoch: '', sequence: 0 };

const status = byId('audience-status');
const params = readParams(location.href);
stripTokensFromAddress(params.cleanUrl, params.hadTokens);

const model = new AudienceTranscript();
const controls = new AudienceControls(
  () => view.renderAll(),
  (change) => view.keepingLive(change),
);
const view = new AudienceView(
  model,
  byId('transcript'),
  byId('audience-empty'),
  byId<HTMLButtonElement>('jump-live'),
  byId('announcer'),
  () => controls.shown,
);

function showState(state: string, text: string): void {
  status.textContent = text;
  status.dataset.state = state;
  document.body.dataset.relay = state;
}

const url = params.get('relayUrl') ?? siteConfig().relayUrl ?? undefined;
const room = params.get('room');
const token = params.get('relayReadToken');
if (!isRelayUrl(url) || !room || !token) {
  byId('audience-help').hidden = false;
  showState('unconfigured', 'No captions link');
} else {
  let firstJoin = true;
  new RelayReader({
    url,
    room,
    token,
    cursor: WHOLE_HISTORY,
    onCaption: (caption) => {
      const change = model.apply(caption);
      if (controls.offerTracks(model.tracks)) view.renderAll();
      view.apply(change);
    },
    onState: (event) => {
      if (event.state === 'joined') showState('joined', 'Live');
      else if (event.state === 'stopped') showState('stopped', 'This captions link does not work any more.');
      else if (event.state === 'waiting' || (event.state === 'connecting' && !firstJoin))
        showState('reconnecting', 'Reconnecting…');
    },
    onGap: ({ gap }) => {
      // The first join asks for the whole history with a cursor of no epoch: that "gap" is expected.
      if (firstJoin) {
        firstJoin = false;
        return;
      }
      document.body.dataset.gap = gap;
      showState(
        'joined',
        gap === 'relay-restarted'
          ? 'Live (the captions server restarted; some may be missing)'
          : 'Live (some captions were missed)',
      );
    },
  });
}
