/// <reference lib="dom" />
/**
 * The links hub's "Stream sources" panel: the source room's sources on the stream sources service
 * (services/sources), with the service access token of step 1. Each row shows its state and why,
 * the audio level, how far behind live it is and how many captions it sent (polled every 2 s
 * while the page is visible), with Edit, Start or Stop and Remove; the form adds a pulled stream
 * or a push listener with its language, mode and vocabulary, and after Edit changes those of a
 * source (its address and kind stay: a new address is a new source, so that a push key is never
 * moved). A push source's address and key are shown once, right after it is created (the service
 * never shows the key whole again; links-push.ts). Hidden when the site has no sources service.
 */
import type { NewStreamSource, StreamSource, StreamSourceSettings } from '@live-captions/protocol';
import { byId, element, setStatus, siteConfig } from '../lib/dom.js';
import { sharedRoomWarning } from '../lib/room-writers.js';
import { requestProblem } from '../lib/service-request.js';
import { SourcesClient, sourceSettingsLine, sourceStateLine, sourceSummary } from '../lib/sources-client.js';
import { hidePush, showPush } from './links-push.js';

const REFRESH_MS = 2000;

const panel = {
  section: byId('sources-panel'),
  list: byId<HTMLUListElement>('sources'),
  form: byId<HTMLFormElement>('source-form'),
  name: byId<HTMLInputElement>('source-name'),
  kind: byId<HTMLSelectElement>('source-kind'),
  url: byId<HTMLInputElement>('source-url'),
  language: byId<HTMLInputElement>('source-language'),
  mode: byId<HTMLSelectElement>('source-mode'),
  vocabulary: byId<HTMLTextAreaElement>('source-vocabulary'),
  submit: byId<HTMLButtonElement>('source-submit'),
  cancel: byId<HTMLButtonElement>('source-cancel'),
  pushDone: byId<HTMLButtonElement>('push-done'),
  status: byId('sources-status'),
};

export interface SourcesPanelInputs {
  /** The service access token (step 1). */
  token(): string;
  /** The event's source room (step 2). */
  room(): string;
}

let inputs: SourcesPanelInputs;

function client(): SourcesClient | undefined {
  const baseUrl = siteConfig().sourcesUrl;
  const token = inputs.token();
  return baseUrl && token ? new SourcesClient({ baseUrl, token }) : undefined;
}

interface Row {
  item: HTMLLIElement;
  state: HTMLElement;
  target: HTMLElement;
  settings: HTMLElement;
  level: HTMLMeterElement;
  stats: HTMLElement;
  shared: HTMLElement;
  edit: HTMLButtonElement;
  toggle: HTMLButtonElement;
  remove: HTMLButtonElement;
  source: StreamSource;
}

/** Rows by source id, updated in place so that a poll never replaces a button being pressed. */
const rows = new Map<string, Row>();

function newRow(source: StreamSource): Row {
  const item = element('li', '', 'source');
  item.dataset.id = source.id;
  const title = element('strong', source.name);
  const state = element('span', '', 'state');
  const target = element('span', '', 'hint target');
  const level = element('meter');
  level.min = 0;
  level.max = 1;
  level.setAttribute('aria-label', `Audio level of ${source.name}`);
  const stats = element('span', '', 'stats');
  const settings = element('span', '', 'hint settings');
  // Another publisher in its room (issue 43.5): said on the row, as the capture page says it.
  const shared = element('span', '', 'shared-room');
  shared.hidden = true;
  const edit = element('button', 'Edit');
  edit.type = 'button';
  edit.setAttribute('aria-label', `Edit the settings of ${source.name}`);
  const toggle = element('button');
  toggle.type = 'button';
  const remove = element('button', 'Remove', 'danger');
  remove.type = 'button';
  remove.setAttribute('aria-label', `Remove ${source.name}`);
  const row: Row = { item, state, target, settings, level, stats, shared, edit, toggle, remove, source };
  edit.addEventListener('click', () => startEditing(row.source));
  toggle.addEventListener('click', () => {
    const running = row.source.running;
    void act(running ? `Stopped ${row.source.name}` : `Started ${row.source.name}`, (c) =>
      running ? c.stop(row.source.id) : c.start(row.source.id),
    );
  });
  remove.addEventListener('click', () => {
    if (confirm(`Remove ${row.source.name}? Its captions stop; a push source's key stops working.`))
      void act(`Removed ${row.source.name}`, (c) => c.remove(row.source.id));
  });
  item.append(title, state, target, settings, level, stats, shared, edit, toggle, remove);
  return row;
}

function showRow(row: Row, source: StreamSource): void {
  row.source = source;
  row.item.dataset.state = source.state;
  row.state.textContent = sourceStateLine(source);
  row.target.textContent = source.input.url;
  row.settings.textContent = sourceSettingsLine(source.settings);
  row.level.value = source.running ? source.level : 0;
  row.stats.textContent = sourceSummary(source);
  const warning = sharedRoomWarning(source.roomWriters ?? 1, source.room);
  if (row.shared.textContent !== (warning ?? '')) row.shared.textContent = warning ?? '';
  row.shared.hidden = warning === undefined;
  row.item.dataset.roomWriters = String(source.roomWriters ?? '');
  row.toggle.textContent = source.running ? 'Stop' : 'Start';
  row.toggle.setAttribute('aria-label', `${source.running ? 'Stop' : 'Start'} ${source.name}`);
}

function showSources(sources: StreamSource[]): void {
  const seen = new Set<string>();
  const items: HTMLElement[] = [];
  for (const source of sources) {
    seen.add(source.id);
    let row = rows.get(source.id);
    if (!row) {
      row = newRow(source);
      rows.set(source.id, row);
    }
    showRow(row, source);
    items.push(row.item);
  }
  for (const id of [...rows.keys()]) if (!seen.has(id)) rows.delete(id);
  if (editing && !seen.has(editing.id)) stopEditing();
  if (items.length === 0)
    items.push(element('li', 'No stream sources: captions come from the capture page only.', 'hint'));
  // Same nodes in the same order: nothing moves under the pointer.
  const current = Array.from(panel.list.children);
  if (current.length !== items.length || current.some((node, index) => node !== items[index]))
    panel.list.replaceChildren(...items);
}

/** Runs one request, says how it went, and shows the list afresh. */
async function act(done: string, request: (c: SourcesClient) => Promise<unknown>): Promise<void> {
  const c = client();
  if (!c) return;
  setStatus(panel.status, 'Working…', 'busy');
  try {
    await request(c);
    setStatus(panel.status, done, 'ok');
  } catch (error) {
    setStatus(panel.status, requestProblem(error), 'error');
  }
  await refresh(false);
}

let lastRoom = '';
/** What the last failed list showed on the status line; undefined once a list loads. */
let listProblem: string | undefined;

async function refresh(sayWhy = true): Promise<void> {
  const c = client();
  const room = inputs.room();
  if (room !== lastRoom) {
    lastRoom = room;
    rows.clear();
    panel.list.replaceChildren();
    stopEditing();
  }
  if (!c || !room) {
    if (sayWhy)
      setStatus(
        panel.status,
        'Enter the service access token (step 1) and the source room (step 2) to manage stream sources.',
        'idle',
      );
    panel.list.replaceChildren();
    rows.clear();
    return;
  }
  try {
    showSources(await c.list(room));
    // A failed list (the service unreachable, restarting) said so in red: the list now loads, so
    // that line is no longer true. What an action said stays until the next one.
    const listLine = listProblem !== undefined && panel.status.textContent === listProblem;
    listProblem = undefined;
    if (listLine || (sayWhy && panel.status.dataset.tone !== 'ok' && panel.status.dataset.tone !== 'error'))
      setStatus(panel.status, '', 'idle');
  } catch (error) {
    listProblem = requestProblem(error);
    setStatus(panel.status, listProblem, 'error');
  }
}

/** The settings the form sets, for a new source or the one being edited. */
function formSettings(): Pick<StreamSourceSettings, 'language' | 'mode' | 'vocabulary'> {
  return {
    language: panel.language.value.trim() || 'en',
    mode: panel.mode.value as StreamSourceSettings['mode'],
    vocabulary: panel.vocabulary.value.trim(),
  };
}

function newSource(): NewStreamSource {
  const kind = panel.kind.value;
  const base = { room: inputs.room(), name: panel.name.value.trim(), settings: formSettings() };
  if (kind === 'rtmp-push' || kind === 'srt-push') return { ...base, input: { kind } };
  return { ...base, input: { kind: 'pull', url: panel.url.value.trim() } };
}

/** The source whose settings the form is changing; none while it adds a source. */
let editing: StreamSource | undefined;

function showFields(): void {
  const pull = panel.kind.value === 'pull' && !editing;
  panel.url.closest<HTMLElement>('.field')!.hidden = !pull;
  panel.url.required = pull;
  panel.kind.closest<HTMLElement>('.field')!.hidden = editing !== undefined;
  panel.name.readOnly = editing !== undefined;
  panel.submit.textContent = editing ? `Save the settings of ${editing.name}` : 'Add source';
  panel.cancel.hidden = !editing;
}

/** The form changes `source`'s settings: filled with them, its address and kind left out. */
function startEditing(source: StreamSource): void {
  editing = source;
  panel.name.value = source.name;
  panel.language.value = source.settings.language;
  panel.mode.value = source.settings.mode;
  panel.vocabulary.value = source.settings.vocabulary;
  hidePush();
  showFields();
  panel.language.focus();
}

/** Back to adding a source, the form emptied of the edited one's values. */
function stopEditing(): void {
  if (!editing) return;
  editing = undefined;
  panel.form.reset();
  showFields();
}

/** Shows the panel when the site has a sources service, and keeps it current while visible. */
export function startSourcesPanel(from: SourcesPanelInputs): { refresh(): void } {
  inputs = from;
  if (!siteConfig().sourcesUrl) return { refresh() {} };
  panel.section.hidden = false;
  showFields();
  panel.kind.addEventListener('change', showFields);
  panel.pushDone.addEventListener('click', hidePush);
  panel.cancel.addEventListener('click', stopEditing);
  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!client() || !inputs.room()) {
      void refresh();
      return;
    }
    if (editing) {
      const { id, name } = editing;
      const settings = formSettings();
      void act(`Saved the settings of ${name}: its next captions use them`, async (c) => {
        await c.update(id, settings);
        stopEditing();
      });
      return;
    }
    const source = newSource();
    void act(`Added ${source.name}`, async (c) => {
      const created = await c.add(source);
      panel.name.value = '';
      panel.url.value = '';
      if (created.push) showPush(created.push);
      else hidePush();
    });
  });
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh(false);
  }, REFRESH_MS);
  return { refresh: () => void refresh() };
}
