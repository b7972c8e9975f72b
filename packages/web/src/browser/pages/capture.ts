/// <reference lib="dom" />
/**
 * Capture page (served by the speech service at `/`, same origin as its API): microphone ->
 * AudioWorklet -> one of two transports: rolling windows at 16 kHz -> `POST /transcribe`, or
 * the realtime WebSocket (24 kHz, server VAD, partial text live). Final text is shown, kept for
 * the transcript download and published to the relay's source room. This module holds the
 * page's state and wiring; the form, the audio input and the relay have modules of their own.
 */

import {
  CaptureSession,
  levelFromRms,
  randomId,
  rms,
  type SessionStatus,
  smoothLevel,
} from '@live-captions/capture';
import type { SpeechHealth, TaskMode } from '@live-captions/protocol';
import type { RelayPublisher } from '@live-captions/relay-client';
import { exportFile, isExportFormat, transcriptCaptions } from '../lib/caption-export.js';
import { downloadText, setStatus } from '../lib/dom.js';
import { REALTIME_RATE, realtimeUrl } from '../lib/realtime-protocol.js';
import { RealtimeSession } from '../lib/realtime-session.js';
import { Transcript } from '../lib/transcript.js';
import { type CaptionSession, VAD_THRESHOLD } from '../lib/transport.js';
import {
  type AudioInput,
  closeAudio,
  connectWorklet,
  keepScreenAwake,
  listMicrophones,
  openMicrophone,
  type WakeLock,
} from './capture-audio.js';
import { CaptionBoard } from './capture-captions.js';
import {
  authHeaders,
  fillLanguages,
  modeInputs,
  restoreSettings,
  savedMicrophone,
  saveSettings,
  selectedMode,
  selectedTransport,
  sensitivity,
  showTransport,
  threshold,
  transportChosen,
  ui,
} from './capture-form.js';
import { checkHealth, nextPollMs, showHealth } from './capture-health.js';
import { fillRelaySettings, relayPublisher } from './capture-relay.js';
import { sessionLine } from './capture-status.js';
import { tokenEntered } from './capture-token.js';
import { applyWords, vocabulary, wireWords } from './capture-words.js';

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
  applyWords,
);
let health: SpeechHealth | undefined;
let session: CaptionSession | undefined;
let publisher: RelayPublisher | undefined;
let audio: AudioInput | undefined;
let wakeLock: WakeLock | undefined;
let level = 0;
let healthTimer: ReturnType<typeof setTimeout> | undefined;

const save = () => saveSettings(health !== undefined);
const refreshTransport = () => showTransport(health, session !== undefined);
const refreshMicrophones = () =>
  listMicrophones(ui.microphone, () => ui.microphone.value || savedMicrophone() || '');

// --- speech service: health, languages, modes ---

/**
 * `/health`, polled for as long as the page is open: the header shows the gateway's real state;
 * the first answer fills in languages, modes and transports.
 */
async function loadHealth(): Promise<void> {
  clearTimeout(healthTimer);
  const answer = await checkHealth(new URL('health', baseUrl), authHeaders());
  showHealth(ui.serviceStatus, answer, session !== undefined);
  if (answer.kind === 'unauthorized') {
    ui.apiKey.setAttribute('aria-invalid', 'true');
    return;
  }
  healthTimer = setTimeout(loadHealth, nextPollMs(answer));
  if (answer.kind !== 'ready') return;
  ui.apiKey.removeAttribute('aria-invalid');
  const first = health === undefined;
  health = answer.health;
  // Realtime comes and goes with the gateway's VAD model.
  refreshTransport();
  if (!first) return;
  fillLanguages(health);
  ui.start.disabled = audio !== undefined;
  if (ui.apiKey.value.trim() && !ui.relayToken.value.trim()) void loadRelayConfig(false);
}

// --- relay publishing ---

function connectRelay(): void {
  publisher?.close();
  publisher = relayPublisher();
}

async function loadRelayConfig(explicit: boolean): Promise<void> {
  if (!(await fillRelaySettings(new URL('relay-config', baseUrl), authHeaders(), explicit))) return;
  save();
  connectRelay();
}

// --- capture ---

function showSession(status: SessionStatus): void {
  // Both transports keep capturing through an outage or a refusal: only Stop ends the audio.
  const line = sessionLine(status);
  setStatus(ui.captureStatus, line.text, line.tone);
  ui.failure.hidden = status.state !== 'failed';
  ui.retry.disabled = ui.discard.disabled = status.state !== 'failed';
  if (line.failure) ui.failureText.textContent = line.failure;
  switch (status.state) {
    case 'draining':
      if (audio) void stopAudio();
      break;
    case 'closed':
      session = undefined;
      board.showPartial('');
      refreshTransport();
      ui.start.disabled = !health;
      ui.stop.disabled = true;
      ui.microphone.disabled = false;
      break;
  }
}

/** The session of the selected transport, fed at `inputRate`. */
function openSession(inputRate: number, service: SpeechHealth): CaptionSession {
  const apiKey = ui.apiKey.value.trim() || undefined;
  const language = ui.language.value;
  if (selectedTransport() === 'realtime') {
    return new RealtimeSession({
      url: realtimeUrl(baseUrl),
      apiKey,
      // The context may run at another rate than asked for: the session resamples.
      inputRate,
      model: service.model,
      language,
      ...(selectedMode() === 'translate' ? { task: 'translate' as const } : {}),
      turnDetection: { threshold: VAD_THRESHOLD[sensitivity()] },
      ...(vocabulary() ? { prompt: vocabulary() } : {}),
      onPartial: (text) => board.showPartial(text),
      onFinal: (final) =>
        board.addUtterance(final, selectedMode() === 'translate' ? 'en' : ui.language.value),
      onStatus: showSession,
      onGap: (seconds) => board.addGap(seconds, 'dropped'),
    });
  }
  return new CaptureSession({
    baseUrl,
    streamId: randomId('cap'),
    language,
    mode: selectedMode(),
    ...(vocabulary() ? { prompt: vocabulary() } : {}),
    apiKey,
    // The room it publishes to: its turn at the gateway's decode slots.
    ...(ui.relayRoom.value.trim() ? { room: ui.relayRoom.value.trim() } : {}),
    threshold: threshold(),
    intervalSeconds: Number(ui.interval.value),
    onResult: (result) => board.addWindow(result, result.mode as TaskMode),
    onStatus: showSession,
    onSkip: (seconds) => board.addGap(seconds, 'skipped'),
    onGap: (seconds) => board.addGap(seconds, 'dropped'),
  });
}

async function startCapture(): Promise<void> {
  if (session || !health) return;
  save();
  ui.start.disabled = true;
  setStatus(ui.captureStatus, 'Opening the microphone…', 'busy');
  let stream: MediaStream;
  try {
    stream = await openMicrophone(ui.microphone.value);
  } catch (error) {
    setStatus(ui.captureStatus, `Microphone unavailable: ${(error as Error).message}`, 'error');
    ui.start.disabled = false;
    return;
  }
  void refreshMicrophones();
  // Realtime audio is 24 kHz: the browser's own resampler gets there when it can.
  const rate = selectedTransport() === 'realtime' ? REALTIME_RATE : health.sample_rate;
  audio = await connectWorklet(stream, rate, new URL('capture-worklet.js', baseUrl));
  const current = openSession(audio.context.sampleRate, health);
  session = current;
  refreshTransport();
  audio.node.port.onmessage = (event: MessageEvent<Float32Array>) => {
    const frameRms = rms(event.data);
    level = smoothLevel(level, levelFromRms(frameRms));
    ui.level.value = level;
    current.push(event.data, frameRms);
  };
  ui.stop.disabled = false;
  ui.microphone.disabled = true;
  wakeLock = await keepScreenAwake();
  showSession(current.status);
}

async function stopAudio(): Promise<void> {
  const current = audio;
  audio = undefined;
  if (!current) return;
  await closeAudio(current);
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

restoreSettings();
// A new vocabulary applies to the next windows or utterances, whichever the transport.
wireWords((prompt) => {
  if (session instanceof CaptureSession || session instanceof RealtimeSession) session.configure({ prompt });
});
connectRelay();
void refreshMicrophones();
void loadHealth();
navigator.mediaDevices?.addEventListener('devicechange', () => void refreshMicrophones());

ui.start.addEventListener('click', () => void startCapture());
ui.stop.addEventListener('click', () => void stopCapture());
ui.retry.addEventListener('click', () => void session?.retry());
ui.discard.addEventListener('click', () => void session?.discard());
ui.download.addEventListener('click', () => {
  const format = ui.downloadFormat.value;
  if (!isExportFormat(format) || format === 'txt') {
    downloadText(transcript.fileName(), transcript.toText());
    return;
  }
  const stem = transcript.fileName().replace(/\.txt$/, '');
  const file = exportFile(transcriptCaptions(transcript.lines), format, stem);
  downloadText(file.name, file.text, file.type);
});
const fillIn = tokenEntered(ui.apiKey, () => {
  save();
  void loadHealth();
  void loadRelayConfig(true);
});
ui.loadRelay.addEventListener('click', fillIn);
ui.relayForm.addEventListener('submit', (event) => {
  event.preventDefault();
  save();
  connectRelay();
});
for (const element of [ui.language, ui.sensitivity, ui.interval, ...modeInputs]) {
  element.addEventListener('change', () => {
    save();
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
  transportChosen();
  save();
  refreshTransport();
});
window.addEventListener('beforeunload', (event) => {
  if (session?.hasPendingAudio || audio || (publisher?.queued ?? 0) > 0) event.preventDefault();
});
