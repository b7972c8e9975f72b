/// <reference lib="dom" />
/**
 * Capture page (served by the speech service at `/`, same origin as its API): microphone ->
 * AudioWorklet -> one of two transports: rolling windows at 16 kHz -> `POST /transcribe`, or
 * the realtime WebSocket (24 kHz, server VAD, partial text live). Final text is shown, kept for
 * the transcript download and published to the relay's source room.
 */
import type { RelayConfigResponse, SpeechHealth, TaskMode } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client';
import { CaptureSession, randomId, type SessionStatus } from '../lib/capture-session.js';
import {
  byId,
  downloadText,
  formatSeconds,
  languageName,
  loadJson,
  setStatus,
  stripTokensFromAddress,
} from '../lib/dom.js';
import { levelFromRms, smoothLevel } from '../lib/level.js';
import { isRelayUrl, readParams } from '../lib/params.js';
import { REALTIME_RATE, realtimeUrl } from '../lib/realtime-protocol.js';
import { RealtimeSession } from '../lib/realtime-session.js';
import { publisherWithStatus } from '../lib/relay-status.js';
import { rms, SENSITIVITY, type Sensitivity } from '../lib/rolling-buffer.js';
import { Transcript } from '../lib/transcript.js';
import { type CaptionSession, parseTransport, type Transport, VAD_THRESHOLD } from '../lib/transport.js';

import { CaptionBoard } from './capture-captions.js';

const SETTINGS_KEY = 'capture-settings';
const TOKENS_KEY = 'capture-tokens';

const ui = {
  serviceStatus: byId('service-status'),
  captureStatus: byId('capture-status'),
  stats: byId('stats'),
  level: byId<HTMLMeterElement>('level'),
  start: byId<HTMLButtonElement>('start'),
  stop: byId<HTMLButtonElement>('stop'),
  download: byId<HTMLButtonElement>('download'),
  failure: byId('failure'),
  failureText: byId('failure-text'),
  retry: byId<HTMLButtonElement>('retry'),
  discard: byId<HTMLButtonElement>('discard'),
  captions: byId<HTMLOListElement>('captions'),
  captionsEmpty: byId('captions-empty'),
  partial: byId('partial'),
  transport: byId<HTMLSelectElement>('transport'),
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
};
const modeInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="mode"]'));

const baseUrl = new URL('./', location.href).href;
const transcript = new Transcript();
const board = new CaptionBoard(
  {
    captions: ui.captions,
    empty: ui.captionsEmpty,
    partial: ui.partial,
    download: ui.download,
    stats: ui.stats,
  },
  transcript,
  randomId('cap').slice(4, 12),
  () => publisher,
);
let health: SpeechHealth | undefined;
let session: CaptionSession | undefined;
let publisher: RelayPublisher | undefined;
let audio: { stream: MediaStream; context: AudioContext; node: AudioWorkletNode } | undefined;
let wakeLock: { release(): Promise<void> } | undefined;
let level = 0;

// --- settings: non-secret ones in localStorage, tokens only for this tab (sessionStorage) ---

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

function saveSettings(): void {
  const previous = loadJson<Saved>(localStorage, SETTINGS_KEY);
  const saved: Saved = {
    microphone: ui.microphone.value,
    // Until /health has listed the languages the select only holds `auto`: keep the saved choice.
    language: health ? ui.language.value : previous.language,
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

function selectedMode(): TaskMode {
  return (modeInputs.find((input) => input.checked)?.value as TaskMode | undefined) ?? 'transcribe';
}

function sensitivity(): Sensitivity {
  return (ui.sensitivity.value as Sensitivity) in SENSITIVITY
    ? (ui.sensitivity.value as Sensitivity)
    : 'normal';
}

function threshold(): number {
  return SENSITIVITY[sensitivity()];
}

function selectedTransport(): Transport {
  return parseTransport(ui.transport.value);
}

/** Settings the realtime transport has no use for are disabled while it is selected. */
function showTransport(): void {
  const realtime = selectedTransport() === 'realtime';
  ui.interval.disabled = realtime;
  for (const input of modeInputs) {
    const supported = health?.modes.includes(input.value as TaskMode) ?? true;
    // One realtime session gives one text per utterance: transcript or translation, not both.
    input.disabled = !supported || (realtime && input.value === 'both');
    if (input.disabled && input.checked) modeInputs[0]!.checked = true;
  }
  ui.transport.disabled = session !== undefined;
}

function authHeaders(): Record<string, string> {
  const key = ui.apiKey.value.trim();
  return key ? { Authorization: `Bearer ${key}` } : {};
}

// --- speech service: health, languages, modes ---

async function loadHealth(): Promise<void> {
  let response: Response;
  try {
    response = await fetch(new URL('health', baseUrl), { headers: authHeaders() });
  } catch {
    setStatus(ui.serviceStatus, 'Speech service unreachable; trying again…', 'error');
    setTimeout(loadHealth, 3000);
    return;
  }
  if (response.status === 401) {
    setStatus(ui.serviceStatus, 'This speech service needs its access token (under Publishing).', 'warn');
    ui.apiKey.setAttribute('aria-invalid', 'true');
    return;
  }
  if (!response.ok) {
    setStatus(ui.serviceStatus, 'Speech service is loading its model; trying again…', 'busy');
    setTimeout(loadHealth, 2000);
    return;
  }
  ui.apiKey.removeAttribute('aria-invalid');
  health = (await response.json()) as SpeechHealth;
  fillLanguages(health);
  showTransport();
  setStatus(ui.serviceStatus, `Ready · model ${health.model} on ${health.device}`, 'ok');
  ui.start.disabled = audio !== undefined;
  if (ui.apiKey.value.trim() && !ui.relayToken.value.trim()) void loadRelayConfig(false);
}

function fillLanguages(report: SpeechHealth): void {
  const saved = loadJson<Saved>(localStorage, SETTINGS_KEY).language;
  const current = ui.language.value;
  ui.language.replaceChildren(new Option('Auto-detect', 'auto'));
  const options = report.languages
    .map((code) => ({ code, name: languageName(code) }))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const { code, name } of options)
    ui.language.append(new Option(name === code ? code : `${name} (${code})`, code));
  if (!report.multilingual) ui.language.options[0]!.disabled = true;
  const wanted = [saved, current === 'auto' ? undefined : current, 'en'].find(
    (code) => code && report.languages.concat('auto').includes(code),
  );
  ui.language.value = wanted ?? report.languages[0] ?? 'auto';
}

// --- microphones ---

async function refreshMicrophones(): Promise<void> {
  const devices = await navigator.mediaDevices.enumerateDevices().catch(() => []);
  const wanted = ui.microphone.value || loadJson<Saved>(localStorage, SETTINGS_KEY).microphone || '';
  ui.microphone.replaceChildren(new Option('System default', ''));
  let index = 0;
  for (const device of devices) {
    if (device.kind !== 'audioinput' || device.deviceId === 'default' || !device.deviceId) continue;
    index += 1;
    ui.microphone.append(new Option(device.label || `Microphone ${index}`, device.deviceId));
  }
  ui.microphone.value = Array.from(ui.microphone.options).some((option) => option.value === wanted)
    ? wanted
    : '';
}

// --- relay publishing ---

function connectRelay(): void {
  publisher?.close();
  publisher = undefined;
  const url = ui.relayUrl.value.trim();
  const room = ui.relayRoom.value.trim();
  const token = ui.relayToken.value.trim();
  if (!url && !room && !token) {
    setStatus(ui.relayStatus, 'Relay: off (captions stay on this page)', 'idle');
    return;
  }
  if (!isRelayUrl(url) || !room || !token) {
    setStatus(ui.relayStatus, 'Relay: needs a ws:// or wss:// address, a room and a write token', 'warn');
    return;
  }
  publisher = publisherWithStatus({ url, room, token }, ui.relayStatus, 'Relay');
}

async function loadRelayConfig(explicit: boolean): Promise<void> {
  const response = await fetch(new URL('relay-config', baseUrl), { headers: authHeaders() }).catch(
    () => undefined,
  );
  if (!response?.ok) {
    if (explicit) {
      const why =
        response?.status === 401 ? 'the access token is wrong' : 'this service has no relay settings';
      setStatus(ui.relayStatus, `Relay: cannot fill in (${why}); type the settings`, 'warn');
    }
    return;
  }
  const config = (await response.json()) as RelayConfigResponse;
  ui.relayUrl.value = config.relayUrl;
  ui.relayRoom.value = config.sourceRoom;
  ui.relayToken.value = config.sourceWriteToken ?? '';
  saveSettings();
  connectRelay();
}

// --- capture ---

function showSession(status: SessionStatus): void {
  const figures = `buffered ${formatSeconds(status.bufferedSeconds)} · captioned ${formatSeconds(status.committedSeconds)}`;
  ui.failure.hidden = status.state !== 'failed';
  ui.retry.disabled = ui.discard.disabled = status.state !== 'failed';
  switch (status.state) {
    case 'capturing':
      setStatus(
        ui.captureStatus,
        status.message ?? `${status.inFlight ? 'Listening · processing' : 'Listening'} · ${figures}`,
        status.message ? 'warn' : 'ok',
      );
      break;
    case 'draining':
      if (audio) void stopAudio();
      setStatus(ui.captureStatus, status.message ?? `Finishing · sending the rest · ${figures}`, 'busy');
      break;
    case 'failed':
      if (audio) void stopAudio();
      ui.stop.disabled = true;
      ui.failureText.textContent = `The speech service did not answer: ${status.message ?? 'unknown error'}. ${formatSeconds(status.bufferedSeconds)} of audio is kept.`;
      setStatus(ui.captureStatus, 'Stopped: audio kept, waiting for Retry or Discard', 'error');
      break;
    case 'closed':
      setStatus(ui.captureStatus, `Stopped · ${figures}`, 'idle');
      session = undefined;
      board.showPartial('');
      showTransport();
      ui.start.disabled = !health;
      ui.stop.disabled = true;
      ui.microphone.disabled = false;
      break;
  }
}

async function startCapture(): Promise<void> {
  if (session || !health) return;
  saveSettings();
  ui.start.disabled = true;
  setStatus(ui.captureStatus, 'Opening the microphone…', 'busy');
  let stream: MediaStream;
  try {
    const deviceId = ui.microphone.value;
    stream = await navigator.mediaDevices.getUserMedia({
      audio: {
        ...(deviceId ? { deviceId: { exact: deviceId } } : {}),
        channelCount: 1,
        echoCancellation: false,
        noiseSuppression: false,
        autoGainControl: false,
      },
    });
  } catch (error) {
    setStatus(ui.captureStatus, `Microphone unavailable: ${(error as Error).message}`, 'error');
    ui.start.disabled = false;
    return;
  }
  void refreshMicrophones();
  const transport = selectedTransport();
  // Realtime audio is 24 kHz: the browser's own resampler gets there when it can.
  const context = new AudioContext({
    sampleRate: transport === 'realtime' ? REALTIME_RATE : health.sample_rate,
  });
  await context.audioWorklet.addModule(new URL('capture-worklet.js', baseUrl));
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, 'capture-processor', { numberOfOutputs: 1, channelCount: 1 });
  source.connect(node);
  node.connect(context.destination);
  audio = { stream, context, node };

  const apiKey = ui.apiKey.value.trim() || undefined;
  const language = ui.language.value;
  const current: CaptionSession =
    transport === 'realtime'
      ? new RealtimeSession({
          url: realtimeUrl(baseUrl),
          apiKey,
          // The context may run at another rate than asked for: the session resamples.
          inputRate: context.sampleRate,
          model: health.model,
          language,
          ...(selectedMode() === 'translate' ? { task: 'translate' as const } : {}),
          turnDetection: { threshold: VAD_THRESHOLD[sensitivity()] },
          onPartial: (text) => board.showPartial(text),
          onFinal: (final) =>
            board.addUtterance(final, selectedMode() === 'translate' ? 'en' : ui.language.value),
          onStatus: showSession,
        })
      : new CaptureSession({
          baseUrl,
          streamId: randomId('cap'),
          language,
          mode: selectedMode(),
          apiKey,
          threshold: threshold(),
          intervalSeconds: Number(ui.interval.value),
          onResult: (result) => board.addWindow(result, result.mode as TaskMode),
          onStatus: showSession,
        });
  session = current;
  showTransport();
  node.port.onmessage = (event: MessageEvent<Float32Array>) => {
    const frameRms = rms(event.data);
    level = smoothLevel(level, levelFromRms(frameRms));
    ui.level.value = level;
    current.push(event.data, frameRms);
  };
  ui.stop.disabled = false;
  ui.microphone.disabled = true;
  wakeLock = await (
    navigator as Navigator & { wakeLock?: { request(type: 'screen'): Promise<{ release(): Promise<void> }> } }
  ).wakeLock
    ?.request('screen')
    .catch(() => undefined);
  showSession(current.status);
}

async function stopAudio(): Promise<void> {
  const current = audio;
  audio = undefined;
  if (!current) return;
  current.node.port.onmessage = null;
  for (const track of current.stream.getTracks()) track.stop();
  await current.context.close().catch(() => undefined);
  ui.level.value = level = 0;
  await wakeLock?.release().catch(() => undefined);
  wakeLock = undefined;
}

async function stopCapture(): Promise<void> {
  ui.stop.disabled = true;
  await stopAudio();
  await session?.stop();
}

// --- wiring ---

function restore(): void {
  const params = readParams(location.href);
  stripTokensFromAddress(params.cleanUrl, params.hadTokens);
  const saved = loadJson<Saved>(localStorage, SETTINGS_KEY);
  const tokens = loadJson<{ apiKey: string; relayToken: string }>(sessionStorage, TOKENS_KEY);
  if (saved.mode) for (const input of modeInputs) input.checked = input.value === saved.mode;
  if (saved.sensitivity && saved.sensitivity in SENSITIVITY) ui.sensitivity.value = saved.sensitivity;
  if (saved.interval && ['3', '6', '9'].includes(saved.interval)) ui.interval.value = saved.interval;
  ui.transport.value = parseTransport(params.get('transport') ?? saved.transport);
  showTransport();
  ui.relayUrl.value = params.get('relayUrl') ?? saved.relayUrl ?? '';
  ui.relayRoom.value = params.get('room') ?? saved.room ?? '';
  ui.relayToken.value = params.get('relayWriteToken') ?? tokens.relayToken ?? '';
  ui.apiKey.value = tokens.apiKey ?? '';
  if (params.hadTokens) saveSettings();
}

restore();
connectRelay();
void refreshMicrophones();
void loadHealth();
navigator.mediaDevices?.addEventListener('devicechange', () => void refreshMicrophones());

ui.start.addEventListener('click', () => void startCapture());
ui.stop.addEventListener('click', () => void stopCapture());
ui.retry.addEventListener('click', () => void session?.retry());
ui.discard.addEventListener('click', () => void session?.discard());
ui.download.addEventListener('click', () => downloadText(transcript.fileName(), transcript.toText()));
ui.loadRelay.addEventListener('click', () => {
  saveSettings();
  void loadHealth();
  void loadRelayConfig(true);
});
ui.relayForm.addEventListener('submit', (event) => {
  event.preventDefault();
  saveSettings();
  connectRelay();
});
for (const element of [ui.language, ui.sensitivity, ui.interval, ...modeInputs]) {
  element.addEventListener('change', () => {
    saveSettings();
    if (session instanceof CaptureSession)
      session.configure({
        language: ui.language.value,
        mode: selectedMode(),
        threshold: threshold(),
        intervalSeconds: Number(ui.interval.value),
      });
    else if (session instanceof RealtimeSession)
      session.configure({
        language: ui.language.value,
        task: selectedMode() === 'translate' ? 'translate' : 'transcribe',
      });
  });
}
ui.transport.addEventListener('change', () => {
  saveSettings();
  showTransport();
});
window.addEventListener('beforeunload', (event) => {
  if (session?.hasPendingAudio || audio || (publisher?.queued ?? 0) > 0) event.preventDefault();
});
