/// <reference lib="dom" />
/**
 * The capture page's form: its elements, the settings read from them (non-secret ones kept in
 * localStorage, tokens only for this tab in sessionStorage), what they are restored from (URL
 * parameters first, then saved settings), and what the speech service's health enables.
 */
import { checkLanguageAndMode } from '@live-captions/audio';
import { SENSITIVITY, type Sensitivity } from '@live-captions/capture';
import type { SpeechHealth, TaskMode } from '@live-captions/protocol';
import { byId, languageName, loadJson, stripTokensFromAddress } from '../lib/dom.js';
import { readParams } from '../lib/params.js';
import { parseTransport, type Transport } from '../lib/transport.js';
import { realtimeUnavailable, type TransportSource, transportLine } from './capture-health.js';

const SETTINGS_KEY = 'capture-settings';
const TOKENS_KEY = 'capture-tokens';

export const ui = {
  serviceStatus: byId('service-status'),
  captureStatus: byId('capture-status'),
  stats: byId('stats'),
  level: byId<HTMLMeterElement>('level'),
  start: byId<HTMLButtonElement>('start'),
  stop: byId<HTMLButtonElement>('stop'),
  download: byId<HTMLButtonElement>('download'),
  downloadFormat: byId<HTMLSelectElement>('download-format'),
  failure: byId('failure'),
  failureText: byId('failure-text'),
  retry: byId<HTMLButtonElement>('retry'),
  discard: byId<HTMLButtonElement>('discard'),
  captions: byId<HTMLOListElement>('captions'),
  captionsEmpty: byId('captions-empty'),
  partial: byId('partial'),
  transport: byId<HTMLSelectElement>('transport'),
  transportStatus: byId('transport-status'),
  transportUnavailable: byId('transport-unavailable'),
  microphone: byId<HTMLSelectElement>('microphone'),
  language: byId<HTMLSelectElement>('language'),
  sensitivity: byId<HTMLSelectElement>('sensitivity'),
  interval: byId<HTMLSelectElement>('interval'),
  apiKey: byId<HTMLInputElement>('api-key'),
  loadRelay: byId<HTMLButtonElement>('load-relay'),
  relayForm: byId<HTMLFormElement>('relay-form'),
  relayUrl: byId<HTMLInputElement>('relay-url'),
  relayRoom: byId<HTMLInputElement>('relay-room'),
  relayToken: byId<HTMLInputElement>('relay-token'),
  relayStatus: byId('relay-status'),
  roomShared: byId('room-shared'),
};
export const modeInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="mode"]'));

interface Saved {
  microphone?: string;
  language?: string;
  mode?: TaskMode;
  sensitivity?: Sensitivity;
  interval?: string;
  transport?: Transport;
  relayUrl?: string;
  room?: string;
}

const savedSettings = () => loadJson<Saved>(localStorage, SETTINGS_KEY);

/** Saves the form; `languagesListed` false keeps the saved language (the select is not filled yet). */
export function saveSettings(languagesListed: boolean): void {
  const previous = savedSettings();
  const saved: Saved = {
    microphone: ui.microphone.value,
    // Until /health has listed the languages the select only holds `auto`: keep the saved choice.
    language: languagesListed ? ui.language.value : previous.language,
    mode: selectedMode(),
    sensitivity: ui.sensitivity.value as Sensitivity,
    interval: ui.interval.value,
    transport: selectedTransport(),
    relayUrl: ui.relayUrl.value.trim(),
    room: ui.relayRoom.value.trim(),
  };
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(saved));
  sessionStorage.setItem(
    TOKENS_KEY,
    JSON.stringify({ apiKey: ui.apiKey.value.trim(), relayToken: ui.relayToken.value.trim() }),
  );
}

export function selectedMode(): TaskMode {
  return (modeInputs.find((input) => input.checked)?.value as TaskMode | undefined) ?? 'transcribe';
}

export function sensitivity(): Sensitivity {
  return (ui.sensitivity.value as Sensitivity) in SENSITIVITY
    ? (ui.sensitivity.value as Sensitivity)
    : 'normal';
}

export function threshold(): number {
  return SENSITIVITY[sensitivity()];
}

export function selectedTransport(): Transport {
  return parseTransport(ui.transport.value);
}

/** The microphone saved last time, for the list of devices. */
export const savedMicrophone = () => savedSettings().microphone;

/**
 * Settings the realtime transport has no use for are disabled while it is selected, modes the
 * service does not offer always, and the transport itself while a session runs. Realtime is
 * offered only when `/health` says the gateway can serve it: asked for by the link or the last
 * choice while it cannot, rolling windows are used and the header says why (and Realtime comes
 * back once it can).
 */
export function showTransport(health: SpeechHealth | undefined, capturing: boolean): void {
  const unavailable = realtimeUnavailable(health);
  const option = ui.transport.querySelector<HTMLOptionElement>('option[value="realtime"]')!;
  option.disabled = unavailable !== undefined;
  option.textContent = unavailable ? 'Realtime (unavailable)' : 'Realtime';
  ui.transportUnavailable.hidden = !unavailable;
  ui.transportUnavailable.textContent = unavailable ? `Realtime is unavailable here: ${unavailable}.` : '';
  if (!capturing && transportSource !== 'chosen' && wantedTransport === 'realtime')
    ui.transport.value = unavailable ? 'rolling' : 'realtime';
  const realtime = selectedTransport() === 'realtime';
  ui.interval.disabled = realtime;
  for (const input of modeInputs) {
    const supported = health?.modes.includes(input.value as TaskMode) ?? true;
    // One realtime session gives one text per utterance: transcript or translation, not both.
    input.disabled = !supported || (realtime && input.value === 'both');
    if (input.disabled && input.checked) modeInputs[0]!.checked = true;
  }
  ui.transport.disabled = capturing;
  const fellBack = !realtime && transportSource !== 'chosen' && wantedTransport === 'realtime';
  ui.transportStatus.textContent = transportLine(
    selectedTransport(),
    transportSource,
    fellBack ? unavailable : undefined,
  );
}

/** Where the transport in use came from (the header says it), and what the link or last choice asked. */
let transportSource: TransportSource = 'default';
let wantedTransport: Transport = 'rolling';
export function transportChosen(): void {
  transportSource = 'chosen';
}

export function authHeaders(): Record<string, string> {
  const key = ui.apiKey.value.trim();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/** The languages of the service's model, the saved or current choice kept where it can be. */
export function fillLanguages(report: SpeechHealth): void {
  const saved = savedSettings().language;
  const current = ui.language.value;
  ui.language.replaceChildren(new Option('Auto-detect', 'auto'));
  const options = report.languages
    .map((code) => ({ code, name: languageName(code) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const { code, name } of options)
    ui.language.append(new Option(name === code ? code : `${name} (${code})`, code));
  // The services' own rule: an English-only model still accepts auto-detect.
  for (const option of Array.from(ui.language.options))
    option.disabled = !checkLanguageAndMode(option.value, 'transcribe', report).ok;
  const wanted = [saved, current === 'auto' ? undefined : current, 'en'].find(
    (code) => code && report.languages.concat('auto').includes(code),
  );
  ui.language.value = wanted ?? report.languages[0] ?? 'auto';
}

/** The form from the URL's parameters (tokens then leave the address bar) and saved settings. */
export function restoreSettings(): void {
  const params = readParams(location.href);
  stripTokensFromAddress(params.cleanUrl, params.hadTokens);
  const saved = savedSettings();
  const tokens = loadJson<{ apiKey: string; relayToken: string }>(sessionStorage, TOKENS_KEY);
  if (saved.mode) for (const input of modeInputs) input.checked = input.value === saved.mode;
  if (saved.sensitivity && saved.sensitivity in SENSITIVITY) ui.sensitivity.value = saved.sensitivity;
  if (saved.interval && ['3', '6', '9'].includes(saved.interval)) ui.interval.value = saved.interval;
  // An explicit `?transport=` in the link wins over the choice remembered on this device.
  const fromLink = params.get('transport');
  transportSource = fromLink ? 'link' : saved.transport ? 'saved' : 'default';
  wantedTransport = parseTransport(fromLink ?? saved.transport);
  ui.transport.value = wantedTransport;
  showTransport(undefined, false);
  ui.relayUrl.value = params.get('relayUrl') ?? saved.relayUrl ?? '';
  ui.relayRoom.value = params.get('room') ?? saved.room ?? '';
  ui.relayToken.value = params.get('relayWriteToken') ?? tokens.relayToken ?? '';
  ui.apiKey.value = tokens.apiKey ?? '';
  if (params.hadTokens) saveSettings(false);
}
