/// <reference lib="dom" />
/**
 * The editor's "Where captions go" panel: the output room's destinations on the outputs service
 * (YouTube Live, Zoom, the transcript archive), added and removed with the room's write token, each
 * with its state, how many captions it is behind and its last error; YouTube and Zoom each take
 * one track (the original or one of the room's languages, editor-languages.ts); and the archive's
 * sessions as SRT, WebVTT or text per track. Hidden when the site has no outputs service.
 */
import type { CaptionFileFormat } from '@live-captions/caption-files';
import type { ArchiveSession, CaptionTrack, Destination, NewDestination } from '@live-captions/protocol';
import { byId, downloadText, element, setStatus, siteConfig } from '../lib/dom.js';
import { languageChoices, ORIGINAL, trackName } from '../lib/languages.js';
import { destinationSummary, OutputsClient } from '../lib/outputs-client.js';
import { requestProblem } from '../lib/service-request.js';
import { ui } from './editor-form.js';
import { refreshLanguages, startLanguagesPanel } from './editor-languages.js';

const REFRESH_MS = 3000;
const FORMATS: readonly CaptionFileFormat[] = ['srt', 'vtt', 'txt'];
const FORMAT_NAMES: Readonly<Record<CaptionFileFormat, string>> = { srt: 'SRT', vtt: 'WebVTT', txt: 'Text' };

const panel = {
  section: byId('outputs-panel'),
  form: byId<HTMLFormElement>('destination-form'),
  kind: byId<HTMLSelectElement>('destination-kind'),
  url: byId<HTMLInputElement>('destination-url'),
  lang: byId<HTMLInputElement>('destination-lang'),
  track: byId<HTMLSelectElement>('destination-track'),
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

function destinationRow(destination: Destination): HTMLLIElement {
  const row = element('li', '', 'destination');
  row.dataset.state = destination.state;
  const title = element('strong', destination.label);
  const target = element('span', destination.target ?? '', 'hint');
  if (destination.track && destination.track !== ORIGINAL)
    title.append(` · ${trackName(destination.track)} (${destination.track})`);
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

/** The session's tracks (the original first, as the service lists them; an older service: the original only). */
function tracksOf(session: ArchiveSession): CaptionTrack[] {
  const tracks = Array.isArray(session.tracks) ? session.tracks.map((t) => t.track) : [];
  return tracks.length > 0 ? tracks : [ORIGINAL];
}

function sessionRow(session: ArchiveSession): HTMLLIElement {
  const row = element('li', '', 'archive-session');
  const started = new Date(session.startedAt).toLocaleString();
  row.append(element('span', `${started} · ${session.captions} captions${session.endedAt ? '' : ' · live'}`));
  const tracks = tracksOf(session);
  for (const track of tracks) {
    const group = element('span', '', 'archive-track');
    group.dataset.track = track;
    // With one track the formats say enough; with several each group is named.
    const name = track === ORIGINAL ? 'Original' : `${trackName(track)} (${track})`;
    if (tracks.length > 1) group.append(element('span', name, 'hint'));
    for (const format of FORMATS) {
      const button = element('button', FORMAT_NAMES[format]);
      button.type = 'button';
      button.dataset.format = format;
      button.setAttribute(
        'aria-label',
        `Download the session of ${started}${tracks.length > 1 ? `, ${name},` : ''} as ${FORMAT_NAMES[format]}`,
      );
      button.addEventListener(
        'click',
        () =>
          void act('', async (c) => {
            const file = await c.download(session.id, format, track);
            downloadText(file.name, file.text);
          }),
      );
      group.append(button);
    }
    row.append(group);
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
    setStatus(panel.status, requestProblem(error), 'error');
  }
  await refresh();
}

async function refresh(): Promise<void> {
  const c = client();
  if (!c) {
    setStatus(panel.status, 'Connect the output room with its write token to manage destinations.', 'idle');
    panel.list.replaceChildren();
    panel.sessions.replaceChildren();
    await refreshLanguages();
    return;
  }
  try {
    const [destinations, sessions] = await Promise.all([c.destinations(), c.sessions(), refreshLanguages()]);
    panel.list.replaceChildren(...destinations.map(destinationRow));
    if (destinations.length === 0)
      panel.list.append(element('li', 'No destinations: captions reach the overlay only.', 'hint'));
    panel.sessions.replaceChildren(...sessions.map(sessionRow));
  } catch (error) {
    setStatus(panel.status, requestProblem(error), 'error');
  }
}

function newDestination(): NewDestination {
  const kind = panel.kind.value;
  const url = panel.url.value.trim();
  const track = panel.track.value && panel.track.value !== ORIGINAL ? { track: panel.track.value } : {};
  if (kind === 'youtube') return { kind, url, ...track };
  if (kind === 'zoom')
    return { kind, url, ...track, ...(panel.lang.value.trim() ? { lang: panel.lang.value.trim() } : {}) };
  return { kind: 'archive' };
}

function showFields(): void {
  const needsUrl = panel.kind.value !== 'archive';
  panel.url.closest<HTMLElement>('.field')!.hidden = !needsUrl;
  panel.url.required = needsUrl;
  panel.lang.closest<HTMLElement>('.field')!.hidden = panel.kind.value !== 'zoom';
  // The archive keeps every track; YouTube and Zoom take one.
  panel.track.closest<HTMLElement>('.field')!.hidden = !needsUrl;
}

/** The track select: the original and the room's languages (a choice made stays offered). */
function offerTracks(targets: string[]): void {
  const chosen = panel.track.value || ORIGINAL;
  const choices = languageChoices([ORIGINAL, ...targets, chosen]).filter((c) => c.key !== 'all');
  const keys = choices.map((c) => c.key).join(' ');
  if (panel.track.dataset.keys === keys) return;
  panel.track.dataset.keys = keys;
  panel.track.replaceChildren(
    ...choices.map(
      (choice) =>
        new Option(choice.key === ORIGINAL ? 'Original' : `${choice.label} (${choice.key})`, choice.key),
    ),
  );
  panel.track.value = chosen;
}

/** Shows the panel when the site has an outputs service, and keeps it current while visible. */
export function startOutputsPanel(): void {
  if (!siteConfig().outputsUrl) return;
  panel.section.hidden = false;
  offerTracks([]);
  startLanguagesPanel(client, offerTracks);
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
