/// <reference lib="dom" />
/**
 * Overlay (an OBS browser source): transparent page that reads the output room and shows the
 * captions as text. Options (query or fragment): `ln` (the track: the original by default, or a
 * translation's language, overlay-model.ts), maxlines (visual lines), clear, showtime, dual,
 * fontsize, font, color, bg, position; `obs` (port) and `obspw` (fragment only) also send the
 * captions to OBS as CEA-608 (obs-captions.ts). The reader resumes with its cursor after a
 * reconnect, so a relay restart repeats nothing. A wrong token shows a small notice; an
 * unreachable relay only with `notice=1` (the overlay is on air: overlay-look.ts), steady from the
 * first failure until the link is back. `body[data-relay]` says the link's state either way.
 *
 * A reload (OBS's "Refresh", a crashed browser source) loses nothing: the tab keeps the link
 * (reader-link.ts), and what was on screen with the cursor it was shown up to (tab-keep.ts). A
 * reload within `RESUME_MS` shows those lines again (for what is left of their idle time) and
 * resumes from the cursor, so captions published meanwhile appear and none twice; a later one
 * starts at the live end, since old captions on a live picture would mislead.
 */
import type { RelayCursor } from '@live-captions/protocol';
import { RelayReader } from '@live-captions/relay-client';
import { byId, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { langAttribute } from '../lib/languages.js';
import { LinkWatch } from '../lib/link-watch.js';
import { OBS_STATE_TEXT, ObsCaptions, type ObsCaptionsState, obsPort } from '../lib/obs-captions.js';
import { captionsThatFit, overlayLook, relayNotice } from '../lib/overlay-look.js';
import { type OverlayLine, OverlayModel, overlayOptions } from '../lib/overlay-model.js';
import { readParams } from '../lib/params.js';
import { readerLink, tabStorage } from '../lib/reader-link.js';
import { TabKeep } from '../lib/tab-keep.js';

/** A reload this soon after the last caption resumes from the cursor; later, from the live end. */
const RESUME_MS = 60_000;

interface KeptScreen {
  room: string;
  cursor: RelayCursor;
  lines: OverlayLine[];
  /** When the lines were last changed (their idle clear counts from there). */
  shownAt: number;
}

const container = byId('captions');
const help = byId('overlay-help');
const notice = byId('overlay-notice');
const params = readParams(location.href);
stripTokensFromAddress(params.cleanUrl, params.hadTokens);

const options = overlayOptions(params.get);
/** `notice=1`: "relay unreachable" on the overlay too (off on air by default). */
const showLost = ['1', 'true', 'yes'].includes((params.get('notice') ?? '').toLowerCase());
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
    ...(options.track ? { track: options.track } : {}),
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
// The captions' language, for the browser's hyphenation and a screen reader (the page has no other text).
if (options.track && options.track !== 'original') container.lang = langAttribute(options.track) ?? '';

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

let shownAt = Date.now();

function render(idleMs = options.showtimeMs): void {
  shownAt = Date.now() - (options.showtimeMs - idleMs);
  container.replaceChildren(
    ...model.lines.map((line) => {
      const element = document.createElement('p');
      element.className = 'caption-line';
      if (line.translation) element.classList.add('translation');
      if (line.interim) element.classList.add('interim');
      // Each line in its own language (a translation beside the original with `dual`).
      const lang = langAttribute(line.ln);
      if (lang) element.lang = lang;
      element.textContent = line.text;
      return element;
    }),
  );
  fitLines();
  clearTimeout(idleTimer);
  if (model.lines.length > 0 && options.showtimeMs > 0) {
    idleTimer = setTimeout(() => {
      if (model.clearAll()) render();
    }, idleMs);
  }
}

function showNotice(text: string | undefined): void {
  notice.textContent = text ?? '';
  notice.hidden = text === undefined;
}

const link = readerLink('overlay', params.get, tabStorage(), siteConfig().relayUrl ?? undefined);
if (!link) {
  help.hidden = false;
  document.body.dataset.relay = 'unconfigured';
} else {
  const keep = new TabKeep<KeptScreen>(`live-captions.overlay.${link.room}`);
  const kept = keep.load();
  let cursor: RelayCursor | undefined;
  if (
    kept?.room === link.room &&
    kept.cursor &&
    typeof kept.shownAt === 'number' &&
    Date.now() - kept.shownAt < RESUME_MS
  ) {
    cursor = kept.cursor;
    const left = options.showtimeMs > 0 ? options.showtimeMs - (Date.now() - kept.shownAt) : 1;
    if (Array.isArray(kept.lines) && left > 0 && model.restore(kept.lines)) render(Math.max(1, left));
    document.body.dataset.restored = String(model.lines.length);
  }
  const watch = new LinkWatch();
  const reader: RelayReader = new RelayReader({
    url: link.url,
    room: link.room,
    token: link.token,
    ...(cursor ? { cursor } : {}),
    onCaption: (caption) => {
      if (model.apply(caption)) {
        render();
        obs?.shown(caption);
      }
      keep.save(() => ({ room: link.room, cursor: reader.cursor!, lines: model.lines, shownAt }));
    },
    // The state is also exposed for OBS users' custom CSS and for tests: `lost` from the first
    // failure until the link is back, not each attempt (the notice does not blink).
    onState: (event) => {
      if (!watch.apply(event, Date.now())) return;
      document.body.dataset.relay = watch.state.view;
      showNotice(relayNotice(watch.state.view, watch.state.code, showLost));
    },
    onGap: ({ gap }) => {
      document.body.dataset.gap = gap;
    },
  });
}
