/// <reference lib="dom" />
/**
 * Editor: reads the source room, queues its captions for review (FIFO, 100) and publishes the
 * reviewed text to the output room. Modes: live (the text is shown as interim while edited),
 * timed (sent after a delay unless the operator sends or skips first), manual.
 */
import type { RelayCaption } from '@live-captions/protocol';
import { type CaptionInput, type RelayPublisher, RelayReader } from '@live-captions/relay-client';
import { randomId } from '../lib/capture-session.js';
import { byId, copyText, loadJson, setStatus, siteConfig, stripTokensFromAddress } from '../lib/dom.js';
import { overlayUrl } from '../lib/links.js';
import { isRelayUrl, readParams } from '../lib/params.js';
import { publisherWithStatus, showRelayState } from '../lib/relay-status.js';
import { DEFAULT_TIMED_DELAY_S, type EditorMode, type ReviewItem, ReviewQueue } from '../lib/review-queue.js';

const SETTINGS_KEY = 'editor-settings';
const TOKENS_KEY = 'editor-tokens';
const SENT_SHOWN = 12;

const ui = {
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
const modeInputs = Array.from(document.querySelectorAll<HTMLInputElement>('input[name="mode"]'));

const queue = new ReviewQueue();
const outputPrefix = randomId('ed').slice(3, 11);
let outputCount = 0;
let reader: RelayReader | undefined;
let publisher: RelayPublisher | undefined;
/** The caption under review (undefined: the operator may type a caption of their own). */
let current: (ReviewItem & { outputId: string; interimShown: boolean; dueAt?: number }) | undefined;
let lastReviewDelayMs: number | undefined;

function mode(): EditorMode {
  return (modeInputs.find((input) => input.checked)?.value as EditorMode | undefined) ?? 'timed';
}

function nextOutputId(): string {
  outputCount += 1;
  return `${outputPrefix}-${outputCount}`;
}

function output(caption: CaptionInput): void {
  if (!publisher) {
    setStatus(ui.outputStatus, 'Output: not connected; caption not sent', 'error');
    return;
  }
  if (!publisher.publish(caption))
    setStatus(ui.outputStatus, 'Output: 100 captions unsent; check the relay', 'error');
}

// --- review flow ---

function meta(item: { label?: string; ln?: string }): Pick<CaptionInput, 'label' | 'ln'> {
  return { ...(item.label ? { label: item.label } : {}), ...(item.ln ? { ln: item.ln } : {}) };
}

function loadNext(): void {
  const item = queue.shift();
  current = item ? { ...item, outputId: nextOutputId(), interimShown: false } : undefined;
  ui.draft.value = item?.text ?? '';
  if (current) {
    ui.draft.dataset.review = 'caption';
    if (mode() === 'timed') current.dueAt = Date.now() + Number(ui.delay.value) * 1000;
    if (mode() === 'live') showInterim();
  } else {
    delete ui.draft.dataset.review;
  }
  render();
}

function showInterim(): void {
  if (!current) return;
  const text = ui.draft.value.trim();
  output({ interm: text, id: current.outputId, ...meta(current) });
  current.interimShown = true;
}

function send(): void {
  const text = ui.draft.value.trim();
  if (current) {
    if (text || current.interimShown) output({ final: text, id: current.outputId, ...meta(current) });
    lastReviewDelayMs = Date.now() - current.receivedAt;
  } else if (text) {
    output({ final: text, id: nextOutputId() });
  } else {
    return;
  }
  if (text) addSent(text);
  loadNext();
}

function skip(): void {
  // An interim already on the overlay is withdrawn with an empty final.
  if (current?.interimShown) output({ final: '', id: current.outputId, ...meta(current) });
  if (current) lastReviewDelayMs = Date.now() - current.receivedAt;
  loadNext();
}

function addSent(text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  ui.sent.prepend(item);
  while (ui.sent.children.length > SENT_SHOWN) ui.sent.lastElementChild?.remove();
}

function onSourceCaption(caption: RelayCaption): void {
  if (caption.c || caption.final === undefined) return;
  const text = caption.final.trim();
  if (!text) return;
  queue.push({
    id: caption.id,
    text,
    receivedAt: Date.now(),
    ...meta(caption),
  });
  // A draft the operator is typing without a caption is never replaced.
  if (!current && !ui.draft.value.trim()) loadNext();
  else render();
}

function render(): void {
  renderQueue();
  renderInfo();
}

/** The waiting list; it changes only on push and shift, so the clock tick leaves it alone. */
function renderQueue(): void {
  ui.queueCount.textContent = String(queue.length);
  ui.queue.replaceChildren(
    ...queue.all.slice(0, 20).map((item) => {
      const li = document.createElement('li');
      li.textContent = item.text;
      return li;
    }),
  );
}

/** The ages and the countdown, which move with the clock. */
function renderInfo(): void {
  const now = Date.now();
  const parts = [
    queue.length
      ? `${queue.length} waiting, oldest ${((now - queue.all[0]!.receivedAt) / 1000).toFixed(1)} s`
      : 'Queue empty',
  ];
  if (current) parts.push(`this one ${((now - current.receivedAt) / 1000).toFixed(1)} s old`);
  if (lastReviewDelayMs !== undefined)
    parts.push(`last review took ${(lastReviewDelayMs / 1000).toFixed(1)} s`);
  if (current?.dueAt !== undefined && mode() === 'timed')
    parts.push(`sending in ${Math.max(0, Math.ceil((current.dueAt - now) / 1000))} s`);
  if (queue.dropped) parts.push(`${queue.dropped} dropped (queue full)`);
  ui.info.textContent = `${parts.join(' · ')}.`;
}

function tick(): void {
  if (current?.dueAt !== undefined && mode() === 'timed' && Date.now() >= current.dueAt) send();
  renderInfo();
}

// --- connections ---

function connect(): void {
  reader?.close();
  publisher?.close();
  reader = publisher = undefined;
  const url = ui.relayUrl.value.trim();
  const sourceRoom = ui.sourceRoom.value.trim();
  const outputRoom = ui.outputRoom.value.trim();
  const problems: string[] = [];
  if (!isRelayUrl(url)) problems.push('a ws:// or wss:// relay address');
  if (!sourceRoom || !ui.sourceToken.value.trim()) problems.push('the source room and its read token');
  if (!outputRoom || !ui.outputToken.value.trim()) problems.push('the output room and its write token');
  if (sourceRoom && sourceRoom === outputRoom) problems.push('an output room different from the source room');
  if (problems.length) {
    setStatus(ui.settingsStatus, `Needs ${problems.join(', ')}.`, 'warn');
    return;
  }
  setStatus(ui.settingsStatus, '', 'idle');
  reader = new RelayReader({
    url,
    room: sourceRoom,
    token: ui.sourceToken.value.trim(),
    onCaption: onSourceCaption,
    onState: (event) => showRelayState(ui.sourceStatus, 'Source', event),
    onGap: ({ gap }) =>
      setStatus(
        ui.settingsStatus,
        gap === 'relay-restarted'
          ? 'The relay restarted: captions sent meanwhile may be missing.'
          : 'Some captions expired before they arrived.',
        'warn',
      ),
  });
  publisher = publisherWithStatus(
    { url, room: outputRoom, token: ui.outputToken.value.trim() },
    ui.outputStatus,
    'Output',
  );
}

function save(): void {
  localStorage.setItem(
    SETTINGS_KEY,
    JSON.stringify({
      relayUrl: ui.relayUrl.value.trim(),
      sourceRoom: ui.sourceRoom.value.trim(),
      outputRoom: ui.outputRoom.value.trim(),
      mode: mode(),
      delay: ui.delay.value,
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

function restore(): void {
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
  const wantedMode = params.get('mode') ?? saved.mode;
  if (wantedMode) for (const input of modeInputs) input.checked = input.value === wantedMode;
  const delay = params.get('delay') ?? saved.delay ?? String(DEFAULT_TIMED_DELAY_S);
  if (Array.from(ui.delay.options).some((option) => option.value === delay)) ui.delay.value = delay;
  if (params.hadTokens) save();
}

restore();
connect();
render();
setInterval(tick, 250);

ui.draft.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
ui.draft.addEventListener('input', () => {
  if (!current) return;
  // Editing restarts the timed countdown; in live mode the audience sees the edit.
  if (mode() === 'timed') current.dueAt = Date.now() + Number(ui.delay.value) * 1000;
  if (mode() === 'live') showInterim();
});
ui.send.addEventListener('click', send);
ui.skip.addEventListener('click', skip);
ui.clearOverlay.addEventListener('click', () => output({ final: '', id: nextOutputId(), c: true }));
for (const element of [...modeInputs, ui.delay]) {
  element.addEventListener('change', () => {
    save();
    if (current) current.dueAt = mode() === 'timed' ? Date.now() + Number(ui.delay.value) * 1000 : undefined;
    if (current && mode() === 'live' && !current.interimShown) showInterim();
    renderInfo();
  });
}
ui.settings.addEventListener('submit', (event) => {
  event.preventDefault();
  save();
  connect();
});
ui.copyOverlay.addEventListener('click', async () => {
  const token = ui.overlayToken.value.trim();
  if (!token || !isRelayUrl(ui.relayUrl.value.trim())) {
    setStatus(ui.settingsStatus, 'The overlay link needs the output read token.', 'warn');
    return;
  }
  const link = overlayUrl(
    new URL('./', location.href).href,
    ui.relayUrl.value.trim(),
    ui.outputRoom.value.trim(),
    token,
  );
  const copied = await copyText(link);
  setStatus(
    ui.settingsStatus,
    copied ? 'Overlay link copied.' : 'Copying failed; allow clipboard access.',
    copied ? 'ok' : 'warn',
  );
});
window.addEventListener('beforeunload', (event) => {
  if (queue.length > 0 || current || (publisher?.queued ?? 0) > 0) event.preventDefault();
});
