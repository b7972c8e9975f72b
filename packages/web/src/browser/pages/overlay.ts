/// <reference lib="dom" />
/**
 * Overlay (an OBS browser source): transparent page that reads the output room and shows the
 * captions as text. Options (query or fragment): maxlines (visual lines), clear, showtime, dual,
 * fontsize, font, color, bg, position; `obs` (port) and `obspw` (fragment only) also send the
 * captions to OBS as CEA-608 (obs-captions.ts). The reader resumes with its cursor after a
 * reconnect, so a relay restart repeats nothing. A wrong token or an unreachable relay shows a
 * small notice.
 */
import { RelayReader } from '@live-captions/relay-client';
import { byId, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { OBS_STATE_TEXT, ObsCaptions, type ObsCaptionsState, obsPort } from '../lib/obs-captions.js';
import { captionsThatFit, overlayLook, relayNotice } from '../lib/overlay-look.js';
import { OverlayModel, overlayOptions } from '../lib/overlay-model.js';
import { isRelayUrl, readParams } from '../lib/params.js';

const container = byId('captions');
const help = byId('overlay-help');
const notice = byId('overlay-notice');
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

// The look becomes CSS custom properties (no inline style attributes: CSP self-only).
const look = overlayLook(params.get, (value) => CSS.supports('color', value));
for (const [property, value] of Object.entries(look.properties))
  document.documentElement.style.setProperty(property, value);
document.body.dataset.position = look.position;

/** Visual lines of a caption element (line boxes of its text). */
function lineCount(element: HTMLElement): number {
  const lineHeight = Number.parseFloat(getComputedStyle(element).lineHeight);
  const height = element.getBoundingClientRect().height;
  return Number.isFinite(lineHeight) && lineHeight > 0 ? Math.max(1, Math.round(height / lineHeight)) : 1;
}

/** Keeps the newest captions that fit in `maxlines` visual lines; a taller one shows its last lines. */
function fitLines(): void {
  const elements = Array.from(container.children) as HTMLElement[];
  const keep = captionsThatFit(elements.map(lineCount), options.maxlines);
  for (const element of elements.slice(0, elements.length - keep)) element.remove();
  const newest = elements.at(-1);
  const tall = newest !== undefined && keep === 1 && lineCount(newest) > options.maxlines;
  container.classList.toggle('clipped', tall);
  document.documentElement.style.setProperty('--caption-lines', String(options.maxlines));
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
  fitLines();
  clearTimeout(idleTimer);
  if (model.lines.length > 0 && options.showtimeMs > 0) {
    idleTimer = setTimeout(() => {
      if (model.clearAll()) render();
    }, options.showtimeMs);
  }
}

function showNotice(text: string | undefined): void {
  notice.textContent = text ?? '';
  notice.hidden = text === undefined;
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
    // The state is also exposed for OBS users' custom CSS and for tests.
    onState: (event) => {
      document.body.dataset.relay = event.state;
      showNotice(relayNotice(event.state, event.code));
    },
    onGap: ({ gap }) => {
      document.body.dataset.gap = gap;
    },
  });
}
