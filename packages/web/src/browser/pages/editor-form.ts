/// <reference lib="dom" />
/**
 * The editor's form: its elements, the mode and delay chosen, and the settings kept between
 * visits (non-secret ones in localStorage, tokens only for this tab in sessionStorage), restored
 * from the URL's parameters first, then from what was saved.
 */
import { byId, loadJson, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { readParams } from '../lib/params.js';
import { DEFAULT_TIMED_DELAY_S, type EditorMode } from '../lib/review-queue.js';

const SETTINGS_KEY = 'editor-settings';
const TOKENS_KEY = 'editor-tokens';

export const ui = {
  sourceStatus: byId('source-status'),
  outputStatus: byId('output-status'),
  draft: byId<HTMLTextAreaElement>('draft'),
  send: byId<HTMLButtonElement>('send'),
  skip: byId<HTMLButtonElement>('skip'),
  clearOverlay: byId<HTMLButtonElement>('clear-overlay'),
  info: byId('review-info'),
  delay: byId<HTMLSelectElement>('delay'),
  queue: byId<HTMLOListElement>('queue'),
  queueCount: byId('queue-count'),
  sent: byId<HTMLOListElement>('sent'),
  settings: byId<HTMLFormElement>('settings'),
  relayUrl: byId<HTMLInputElement>('relay-url'),
  sourceRoom: byId<HTMLInputElement>('source-room'),
  sourceToken: byId<HTMLInputElement>('source-token'),
  outputRoom: byId<HTMLInputElement>('output-room'),
  outputToken: byId<HTMLInputElement>('output-token'),
  overlayToken: byId<HTMLInputElement>('overlay-token'),
  copyOverlay: byId<HTMLButtonElement>('copy-overlay'),
  settingsStatus: byId('settings-status'),
};
export const modeInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="mode"]'));

export function mode(): EditorMode {
  return (modeInputs.find((input) => input.checked)?.value as EditorMode | undefined) ?? 'timed';
}

/** Timed mode's delay, counted from each caption's arrival. */
export function delayMs(): number {
  return Number(ui.delay.value) * 1000;
}

/** The overlay's display options (its query) that "Copy overlay link" keeps, from the hub's link. */
let overlayQuery = '';
export function overlayDisplayQuery(): string {
  return overlayQuery;
}

export function save(): void {
  localStorage.setItem(
    SETTINGS_KEY,
    JSON.stringify({
      relayUrl: ui.relayUrl.value.trim(),
      sourceRoom: ui.sourceRoom.value.trim(),
      outputRoom: ui.outputRoom.value.trim(),
      mode: mode(),
      delay: ui.delay.value,
      overlay: overlayQuery,
    }),
  );
  sessionStorage.setItem(
    TOKENS_KEY,
    JSON.stringify({
      sourceReadToken: ui.sourceToken.value.trim(),
      outputWriteToken: ui.outputToken.value.trim(),
      outputReadToken: ui.overlayToken.value.trim(),
    }),
  );
}

/** The form from the URL's parameters (tokens then leave the address bar) and saved settings. */
export function restore(): void {
  const params = readParams(location.href);
  stripTokensFromAddress(params.cleanUrl, params.hadTokens);
  const saved = loadJson<Record<string, string>>(localStorage, SETTINGS_KEY);
  const tokens = loadJson<Record<string, string>>(sessionStorage, TOKENS_KEY);
  ui.relayUrl.value = params.get('relayUrl') ?? saved.relayUrl ?? siteConfig().relayUrl ?? '';
  ui.sourceRoom.value = params.get('sourceRoom') ?? saved.sourceRoom ?? '';
  ui.outputRoom.value = params.get('outputRoom') ?? saved.outputRoom ?? '';
  ui.sourceToken.value = params.get('sourceReadToken') ?? tokens.sourceReadToken ?? '';
  ui.outputToken.value = params.get('outputWriteToken') ?? tokens.outputWriteToken ?? '';
  ui.overlayToken.value = params.get('outputReadToken') ?? tokens.outputReadToken ?? '';
  overlayQuery = params.get('overlay') ?? saved.overlay ?? '';
  const wantedMode = params.get('mode') ?? saved.mode;
  if (wantedMode) for (const input of modeInputs) input.checked = input.value === wantedMode;
  const delay = params.get('delay') ?? saved.delay ?? String(DEFAULT_TIMED_DELAY_S);
  if (Array.from(ui.delay.options).some((option) => option.value === delay)) ui.delay.value = delay;
  if (params.hadTokens) save();
}
