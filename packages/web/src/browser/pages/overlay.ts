/// <reference lib="dom" />
/**
 * Overlay (an OBS browser source): transparent page that reads the output room and shows the
 * captions as text. Options (query or fragment): maxlines, clear, showtime, dual, fontsize, color;
 * `obs` (port) and `obspw` (fragment only) also send the captions to OBS as CEA-608 (obs-captions.ts).
 * The reader resumes with its cursor after a reconnect, so a relay restart repeats nothing.
 */
import { RelayReader } from '@live-captions/relay-client';
import { byId, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { OBS_STATE_TEXT, ObsCaptions, type ObsCaptionsState, obsPort } from '../lib/obs-captions.js';
import { OverlayModel, overlayOptions } from '../lib/overlay-model.js';
import { isRelayUrl, readParams } from '../lib/params.js';

const container = byId('captions');
const help = byId('overlay-help');
const params = readParams(location.href);
stripTokensFromAddress(params.cleanUrl, params.hadTokens);

const options = overlayOptions(params.get);
const model = new OverlayModel(options);
let idleTimer: ReturnType<typeof setTimeout> | undefined;
const obs = startObsCaptions();

/** With `obs=<port>`: OBS native captions, and a small notice while they cannot reach a stream. */
function startObsCaptions(): ObsCaptions | undefined {
  const port = obsPort(params.get('obs'));
  if (port === undefined) return undefined;
  const notice = byId('obs-state');
  const show = (state: ObsCaptionsState) => {
    // Exposed for OBS's custom CSS (e.g. `#obs-state { display: none }`) and for tests.
    document.body.dataset.obs = state;
    notice.textContent = OBS_STATE_TEXT[state];
    notice.hidden = OBS_STATE_TEXT[state] === '';
  };
  let sent = 0;
  const captions = new ObsCaptions({
    port,
    password: params.get('obspw'),
    showtimeMs: options.showtimeMs,
    onState: show,
    onSent: () => {
      document.body.dataset.obsSent = String(++sent);
    },
  });
  show(captions.state);
  return captions;
}

// Font options become CSS custom properties (no inline style attributes: CSP self-only).
const fontSize = Number(params.get('fontsize'));
if (Number.isFinite(fontSize) && fontSize >= 8 && fontSize <= 200) {
  document.documentElement.style.setProperty('--caption-size', `${fontSize}px`);
}
for (const [name, property] of [
  ['color', '--caption-color'],
  ['bg', '--caption-background'],
] as const) {
  const value = params.get(name);
  if (value && /^(#[0-9a-f]{3,8}|[a-z]{3,20})$/i.test(value) && CSS.supports('color', value)) {
    document.documentElement.style.setProperty(property, value);
  }
}

function render(): void {
  container.replaceChildren(
    ...model.lines.map((line) => {
      const element = document.createElement('p');
      element.className = 'caption-line';
      if (line.translation) element.classList.add('translation');
      if (line.interim) element.classList.add('interim');
      element.textContent = line.text;
      return element;
    }),
  );
  clearTimeout(idleTimer);
  if (model.lines.length > 0 && options.showtimeMs > 0) {
    idleTimer = setTimeout(() => {
      if (model.clearAll()) render();
    }, options.showtimeMs);
  }
}

const url = params.get('relayUrl') ?? siteConfig().relayUrl ?? undefined;
const room = params.get('room');
const token = params.get('relayReadToken');
if (!isRelayUrl(url) || !room || !token) {
  help.hidden = false;
  document.body.dataset.relay = 'unconfigured';
} else {
  new RelayReader({
    url,
    room,
    token,
    onCaption: (caption) => {
      if (!model.apply(caption)) return;
      render();
      obs?.shown(caption);
    },
    // The state is exposed for OBS users' custom CSS and for tests; nothing is shown to the audience.
    onState: (event) => {
      document.body.dataset.relay = event.state;
    },
    onGap: ({ gap }) => {
      document.body.dataset.gap = gap;
    },
  });
}
