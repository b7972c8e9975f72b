/// <reference lib="dom" />
/**
 * Links hub: reads the relay settings from the capture host's `GET /relay-config` (with the
 * service access token) or takes them typed, and builds the capture, editor and overlay links;
 * its "Stream sources" panel (links-sources.ts) runs the source room's streams with the same token,
 * and its "Caption rooms" board (links-rooms.ts) the relay's rooms, each with its own links.
 */
import type { RelaySettings } from '@live-captions/protocol';
import { byId, copyText, setStatus, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { buildLinks, type OverlayOptions } from '../lib/links.js';
import { isRelayUrl, readParams } from '../lib/params.js';
import { updateAudienceLink, wireAudienceQrSave } from './links-audience.js';
import { keepHub, restoreHub, watchHub } from './links-keep.js';
import { audienceLanguage, overlayLanguage, refreshLanguages, startLanguages } from './links-languages.js';
import { startRoomsPanel } from './links-rooms.js';
import { startSourcesPanel } from './links-sources.js';

const input = (id: string) => byId<HTMLInputElement>(id);
const ui = {
  fetchForm: byId<HTMLFormElement>('fetch-form'),
  captureUrl: input('capture-url'),
  apiKey: input('api-key'),
  fetchStatus: byId('fetch-status'),
  relayUrl: input('relay-url'),
  sourceRoom: input('source-room'),
  outputRoom: input('output-room'),
  sourceRead: input('source-read'),
  sourceWrite: input('source-write'),
  outputRead: input('output-read'),
  outputWrite: input('output-write'),
  maxlines: input('maxlines'),
  showtime: input('showtime'),
  fontsize: input('fontsize'),
  color: input('color'),
  font: byId<HTMLSelectElement>('font'),
  position: byId<HTMLSelectElement>('position'),
  bg: input('bg'),
  remember: input('remember-token'),
  clear: input('clear'),
  dual: input('dual'),
  obsPort: input('obs-port'),
  obsPassword: input('obs-password'),
  captureLink: input('capture-link'),
  editorLink: input('editor-link'),
  overlayLink: input('overlay-link'),
  linksStatus: byId('links-status'),
};

const site = new URL('./', location.href).href;
/** The rooms board (started below); update() may run before it is, from a language list's answer. */
let rooms: ReturnType<typeof startRoomsPanel> | undefined;
const config = siteConfig();
ui.captureUrl.value = config.captureUrl ?? '';
ui.relayUrl.value = config.relayUrl ?? '';

function captureBase(): string | null {
  const value = ui.captureUrl.value.trim();
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? new URL('./', url).href : null;
  } catch {
    return null;
  }
}

function numberOrUndefined(element: HTMLInputElement): number | undefined {
  const value = element.valueAsNumber;
  return element.value.trim() !== '' && Number.isFinite(value) ? value : undefined;
}

/** The overlay's look of step 3, for this pair's links and every room's on the board. */
function overlayOptions(): OverlayOptions {
  return {
    ln: overlayLanguage().value || undefined,
    maxlines: numberOrUndefined(ui.maxlines),
    showtime: numberOrUndefined(ui.showtime),
    fontsize: numberOrUndefined(ui.fontsize),
    color: ui.color.value.trim() || undefined,
    font: ui.font.value || undefined,
    bg: ui.bg.value.trim() || undefined,
    position: ui.position.value === 'top' ? 'top' : undefined,
    clear: ui.clear.checked,
    dual: ui.dual.checked,
    obsPort: numberOrUndefined(ui.obsPort),
    obsPassword: ui.obsPassword.value || undefined,
  };
}

function update(): void {
  const relayUrl = ui.relayUrl.value.trim();
  const links = isRelayUrl(relayUrl)
    ? buildLinks(
        site,
        captureBase(),
        {
          relayUrl,
          sourceRoom: ui.sourceRoom.value.trim(),
          outputRoom: ui.outputRoom.value.trim(),
          sourceReadToken: ui.sourceRead.value.trim() || null,
          sourceWriteToken: ui.sourceWrite.value.trim() || null,
          outputReadToken: ui.outputRead.value.trim() || null,
          outputWriteToken: ui.outputWrite.value.trim() || null,
        },
        overlayOptions(),
      )
    : { capture: null, editor: null, overlay: null };
  ui.captureLink.value = links.capture ?? '';
  ui.editorLink.value = links.editor ?? '';
  ui.overlayLink.value = links.overlay ?? '';
  const audience = updateAudienceLink(
    site,
    isRelayUrl(relayUrl) ? relayUrl : null,
    ui.outputRoom.value.trim(),
    ui.outputRead.value.trim() || null,
    audienceLanguage().value || undefined,
  );
  refreshLanguages(ui.outputRoom.value.trim(), ui.outputWrite.value.trim(), update);
  rooms?.relink();
  const all = [links.capture, links.editor, links.overlay, audience];
  const ready = all.filter(Boolean).length;
  setStatus(
    ui.linksStatus,
    ready === all.length ? 'All four links are ready.' : `${ready} of ${all.length} links ready.`,
    ready === all.length ? 'ok' : 'idle',
  );
}

async function fill(): Promise<void> {
  const base = captureBase();
  if (!base) {
    setStatus(ui.fetchStatus, 'Enter the capture host address (http:// or https://).', 'warn');
    return;
  }
  const key = ui.apiKey.value.trim();
  setStatus(ui.fetchStatus, 'Asking the capture host…', 'busy');
  let response: Response;
  try {
    response = await fetch(new URL('relay-config', base), {
      headers: key ? { Authorization: `Bearer ${key}` } : {},
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    setStatus(
      ui.fetchStatus,
      'The capture host did not answer (is this site among its allowed origins?). Type the settings instead.',
      'error',
    );
    return;
  }
  if (!response.ok) {
    const why =
      response.status === 401
        ? 'the access token is missing or wrong'
        : response.status === 404
          ? 'the capture host has no relay settings'
          : response.status === 403
            ? 'this site is not among its allowed origins'
            : `HTTP ${response.status}`;
    setStatus(ui.fetchStatus, `Could not fill in: ${why}. Type the settings instead.`, 'warn');
    return;
  }
  rememberToken();
  const relay = (await response.json()) as RelaySettings;
  ui.relayUrl.value = relay.relayUrl;
  ui.sourceRoom.value = relay.sourceRoom;
  ui.outputRoom.value = relay.outputRoom;
  ui.sourceRead.value = relay.sourceReadToken ?? '';
  ui.sourceWrite.value = relay.sourceWriteToken ?? '';
  ui.outputRead.value = relay.outputReadToken ?? '';
  ui.outputWrite.value = relay.outputWriteToken ?? '';
  setStatus(ui.fetchStatus, 'Filled in from the capture host.', 'ok');
  keepHub();
  update();
  sources.refresh();
  rooms?.refresh();
}

ui.fetchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void fill();
});
for (const form of ['relay-form', 'overlay-form']) {
  const element = byId<HTMLFormElement>(form);
  element.addEventListener('input', update);
  element.addEventListener('change', update);
  element.addEventListener('submit', (event) => event.preventDefault());
}
ui.captureUrl.addEventListener('input', update);
startLanguages();
audienceLanguage().addEventListener('change', update);
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-copy]'))) {
  button.addEventListener('click', async () => {
    const target = byId<HTMLInputElement>(button.dataset.copy!);
    if (!target.value) return;
    const copied = await copyText(target.value, target);
    setStatus(ui.linksStatus, copied ? 'Copied.' : 'Selected: press Ctrl+C to copy.', copied ? 'ok' : 'idle');
  });
}
wireAudienceQrSave();
const sources = startSourcesPanel({
  token: () => ui.apiKey.value.trim(),
  room: () => ui.sourceRoom.value.trim(),
});
rooms = startRoomsPanel({
  token: () => ui.apiKey.value.trim(),
  captureBase,
  relayUrl: () => config.relayUrl ?? (isRelayUrl(ui.relayUrl.value.trim()) ? ui.relayUrl.value.trim() : null),
  overlay: overlayOptions,
  use(room) {
    ui.sourceRoom.value = room.sourceRoom;
    ui.outputRoom.value = room.outputRoom;
    ui.sourceRead.value = room.tokens.sourceRead;
    ui.sourceWrite.value = room.tokens.sourceWrite;
    ui.outputRead.value = room.tokens.outputRead;
    ui.outputWrite.value = room.tokens.outputWrite;
    keepHub();
    update();
    sources.refresh();
    ui.sourceRoom.focus();
  },
});
ui.apiKey.addEventListener('change', () => {
  sources.refresh();
  rooms?.refresh();
});
ui.sourceRoom.addEventListener('change', () => sources.refresh());
for (const button of Array.from(document.querySelectorAll<HTMLButtonElement>('button[data-open]'))) {
  button.addEventListener('click', () => {
    const target = byId<HTMLInputElement>(button.dataset.open!);
    if (target.value) window.open(target.value, '_blank', 'noopener,noreferrer');
  });
}

// The access token: from `pnpm start`'s link (fragment only, then out of the address bar), or
// remembered on this device when the operator asked for it (opt-in; unticking forgets it).
const REMEMBERED_TOKEN = 'links-access-token';

function rememberToken(): void {
  if (ui.remember.checked) localStorage.setItem(REMEMBERED_TOKEN, ui.apiKey.value.trim());
  else localStorage.removeItem(REMEMBERED_TOKEN);
}

ui.remember.addEventListener('change', rememberToken);
const params = readParams(location.href);
stripTokensFromAddress(params.cleanUrl, params.hadTokens);
const remembered = localStorage.getItem(REMEMBERED_TOKEN);
ui.remember.checked = remembered !== null;
// A reload of this tab shows what it showed (links-keep.ts); `pnpm start`'s link wins over it.
const restored = restoreHub();
watchHub();
const fromLink = params.get('token');
const token = fromLink ?? (ui.apiKey.value.trim() || remembered) ?? '';
ui.apiKey.value = token;
update();
if (token && captureBase() && (fromLink || !restored)) void fill();
else if (restored) {
  sources.refresh();
  rooms?.refresh();
}
// `pnpm start`'s link pasted into this tab while it is open changes only the fragment: no load.
addEventListener('hashchange', () => {
  const pasted = readParams(location.href);
  stripTokensFromAddress(pasted.cleanUrl, pasted.hadTokens);
  const token = pasted.get('token');
  if (!token) return;
  ui.apiKey.value = token;
  if (captureBase()) void fill();
  else
    setStatus(
      ui.fetchStatus,
      'Token taken from the link: enter the capture host address, then Fill in.',
      'warn',
    );
});
