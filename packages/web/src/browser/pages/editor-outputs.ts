/// <reference lib="dom" />
/**
 * The editor's "Where captions go" panel: the output room's destinations on the outputs service
 * (YouTube Live, Zoom, the transcript archive), added and removed with the room's write token, each
 * with its state, how many captions it is behind and its last error; and the archive's sessions
 * as SRT, WebVTT or text. Hidden when the site has no outputs service.
 */
import type { CaptionFileFormat } from '@live-captions/caption-files';
import type { ArchiveSession, Destination, NewDestination } from '@live-captions/protocol';
import { byId, downloadText, setStatus, siteConfig } from '../lib/dom.js';
import { destinationSummary, OutputsClient, OutputsRequestError } from '../lib/outputs-client.js';
import { ui } from './editor-form.js';

const REFRESH_MS = 3000;
const FORMATS: readonly CaptionFileFormat[] = ['srt', 'vtt', 'txt'];
const FORMAT_NAMES: Readonly<Record<CaptionFileFormat, string>> = { srt: 'SRT', vtt: 'WebVTT', txt: 'Text' };

const panel = {
  section: byId('outputs-panel'),
  form: byId<HTMLFormElement>('destination-form'),
  kind: byId<HTMLSelectElement>('destination-kind'),
  url: byId<HTMLInputElement>('destination-url'),
  lang: byId<HTMLInputElement>('destination-lang'),
  list: byId<HTMLUListElement>('destinations'),
  sessions: byId<HTMLOListElement>('archive-sessions'),
  status: byId('outputs-status'),
};

function client(): OutputsClient | undefined {
  const baseUrl = siteConfig().outputsUrl;
  const room = ui.outputRoom.value.trim();
  const token = ui.outputToken.value.trim();
  return baseUrl && room && token ? new OutputsClient({ baseUrl, room, token }) : undefined;
}

function problem(error: unknown): string {
  return error instanceof OutputsRequestError ? error.message : 'Unexpected error';
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text = '',
  className = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

function destinationRow(destination: Destination): HTMLLIElement {
  const row = element('li', '', 'destination');
  row.dataset.state = destination.state;
  const title = element('strong', destination.label);
  const target = element('span', destination.target ?? '', 'hint');
  const state = element('span', destination.state, 'state');
  const summary = element('span', destinationSummary(destination), 'stats');
  const remove = element('button', 'Remove');
  remove.type = 'button';
  remove.setAttribute(
    'aria-label',
    `Remove ${destination.label}${destination.target ? ` ${destination.target}` : ''}`,
  );
  remove.addEventListener(
    'click',
    () => void act(`Removed ${destination.label}`, (c) => c.remove(destination.id)),
  );
  row.append(title, state, target, summary, remove);
  return row;
}

function sessionRow(session: ArchiveSession): HTMLLIElement {
  const row = element('li', '', 'archive-session');
  const started = new Date(session.startedAt).toLocaleString();
  row.append(element('span', `${started} · ${session.captions} captions${session.endedAt ? '' : ' · live'}`));
  for (const format of FORMATS) {
    const button = element('button', FORMAT_NAMES[format]);
    button.type = 'button';
    button.setAttribute('aria-label', `Download the session of ${started} as ${FORMAT_NAMES[format]}`);
    button.addEventListener(
      'click',
      () =>
        void act('', async (c) => {
          const file = await c.download(session.id, format);
          downloadText(file.name, file.text);
        }),
    );
    row.append(button);
  }
  const remove = element('button', 'Delete', 'danger');
  remove.type = 'button';
  remove.setAttribute('aria-label', `Delete the session of ${started}`);
  remove.addEventListener('click', () => {
    if (confirm(`Delete the transcript of ${started}? This cannot be undone.`))
      void act('Session deleted', (c) => c.deleteSession(session.id));
  });
  row.append(remove);
  return row;
}

/** Runs one request, says how it went, and shows the panel afresh. */
async function act(done: string, request: (c: OutputsClient) => Promise<unknown>): Promise<void> {
  const c = client();
  if (!c) return;
  try {
    await request(c);
    if (done) setStatus(panel.status, done, 'ok');
  } catch (error) {
    setStatus(panel.status, problem(error), 'error');
  }
  await refresh();
}

async function refresh(): Promise<void> {
  const c = client();
  if (!c) {
    setStatus(panel.status, 'Connect the output room with its write token to manage destinations.', 'idle');
    panel.list.replaceChildren();
    panel.sessions.replaceChildren();
    return;
  }
  try {
    const [destinations, sessions] = await Promise.all([c.destinations(), c.sessions()]);
    panel.list.replaceChildren(...destinations.map(destinationRow));
    if (destinations.length === 0)
      panel.list.append(element('li', 'No destinations: captions reach the overlay only.', 'hint'));
    panel.sessions.replaceChildren(...sessions.map(sessionRow));
  } catch (error) {
    setStatus(panel.status, problem(error), 'error');
  }
}

function newDestination(): NewDestination {
  const kind = panel.kind.value;
  const url = panel.url.value.trim();
  if (kind === 'youtube') return { kind, url };
  if (kind === 'zoom')
    return { kind, url, ...(panel.lang.value.trim() ? { lang: panel.lang.value.trim() } : {}) };
  return { kind: 'archive' };
}

function showFields(): void {
  const needsUrl = panel.kind.value !== 'archive';
  panel.url.closest<HTMLElement>('.field')!.hidden = !needsUrl;
  panel.url.required = needsUrl;
  panel.lang.closest<HTMLElement>('.field')!.hidden = panel.kind.value !== 'zoom';
}

/** Shows the panel when the site has an outputs service, and keeps it current while visible. */
export function startOutputsPanel(): void {
  if (!siteConfig().outputsUrl) return;
  panel.section.hidden = false;
  showFields();
  panel.kind.addEventListener('change', showFields);
  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const destination = newDestination();
    void act('Destination added', async (c) => {
      await c.add(destination);
      panel.url.value = '';
    });
  });
  ui.settings.addEventListener('submit', () => void refresh());
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, REFRESH_MS);
}
