/// <reference lib="dom" />
/**
 * The editor's Languages panel (in "Where captions go"): the output room's translation targets on
 * the outputs service, added and removed with the room's write token, each with its engine, state,
 * how many captions it is behind and its last error (polled with the destinations); and the room's
 * vocabulary, the names translations keep unchanged. The target select offers only what the
 * chosen engine reports (`translation-languages`, asked through the service, so that a key typed
 * here goes to the service once and is never shown again: the list shows the service's mask).
 */
import type { NewTranslation, Translation, TranslationEngineKind } from '@live-captions/protocol';
import { byId, element, setStatus } from '../lib/dom.js';
import { langAttribute, nativeName } from '../lib/languages.js';
import {
  type EngineQuery,
  engineSummary,
  type OutputsClient,
  translationSummary,
} from '../lib/outputs-client.js';
import { requestProblem } from '../lib/service-request.js';

const panel = {
  list: byId<HTMLUListElement>('translations'),
  form: byId<HTMLFormElement>('translation-form'),
  engine: byId<HTMLSelectElement>('translation-engine'),
  url: byId<HTMLInputElement>('translation-url'),
  key: byId<HTMLInputElement>('translation-key'),
  source: byId<HTMLInputElement>('translation-source'),
  target: byId<HTMLSelectElement>('translation-target'),
  listButton: byId<HTMLButtonElement>('translation-list'),
  vocabularyForm: byId<HTMLFormElement>('vocabulary-form'),
  vocabulary: byId<HTMLTextAreaElement>('vocabulary'),
  status: byId('languages-status'),
};

let client: () => OutputsClient | undefined = () => undefined;
let onTargets: (targets: string[]) => void = () => {};
/** The room's targets as last listed (offered to destinations, left out of the target select). */
let current: Translation[] = [];
/**
 * The room connected last: its vocabulary is read once (a refresh never overwrites typing), and
 * its engine's languages are listed again once the operator comes to the form.
 */
let connectedRoom: string | undefined;

function row(translation: Translation): HTMLLIElement {
  const item = element('li', '', 'destination translation-row');
  item.dataset.state = translation.state;
  item.dataset.target = translation.target;
  const title = element('strong', `${nativeName(translation.target)} (${translation.target})`);
  title.lang = langAttribute(translation.target) ?? '';
  const state = element('span', translation.state, 'state');
  const engine = element('span', engineSummary(translation), 'hint');
  const stats = element('span', translationSummary(translation), 'stats');
  const remove = element('button', 'Remove');
  remove.type = 'button';
  remove.setAttribute('aria-label', `Remove the ${translation.target} translation`);
  remove.addEventListener(
    'click',
    () => void act(`Removed ${translation.target}`, (c) => c.removeTranslation(translation.id)),
  );
  item.append(title, state, engine, stats, remove);
  return item;
}

/** Runs one request, says how it went, and lists the languages afresh. */
async function act(done: string, request: (c: OutputsClient) => Promise<unknown>): Promise<boolean> {
  const c = client();
  if (!c) return false;
  let ok = false;
  try {
    await request(c);
    if (done) setStatus(panel.status, done, 'ok');
    ok = true;
  } catch (error) {
    setStatus(panel.status, requestProblem(error), 'error');
  }
  await refreshLanguages();
  return ok;
}

function engineQuery(): EngineQuery {
  const engine = panel.engine.value as TranslationEngineKind;
  const url = panel.url.value.trim();
  const key = panel.key.value.trim();
  const source = panel.source.value.trim();
  return {
    engine,
    ...(url ? { url } : {}),
    // Apertium takes no key (the service refuses one): the field is hidden, never sent.
    ...(key && engine !== 'apertium' ? { key } : {}),
    ...(source ? { source } : {}),
  };
}

/** Which fields the chosen engine takes: LibreTranslate an address (and a key if the server wants one), DeepL a key. */
function showFields(): void {
  const engine = panel.engine.value;
  panel.url.closest<HTMLElement>('.field')!.hidden = engine === 'deepl';
  panel.url.required = engine === 'libretranslate';
  panel.url.placeholder =
    engine === 'apertium' ? "Empty: the stack's own Apertium" : 'https://libretranslate.example.org/';
  panel.key.closest<HTMLElement>('.field')!.hidden = engine === 'apertium';
  panel.key.required = engine === 'deepl';
}

function resetTargets(text: string): void {
  panel.target.replaceChildren(new Option(text, ''));
  panel.target.disabled = true;
}

let asking = 0;
/** Whether the target select holds the engine's answer for the room connected. */
let listed = false;
/** Fills the target select with what the engine reports (less the room's targets already there). */
async function listTargets(): Promise<void> {
  const c = client();
  if (!c) return;
  const query = engineQuery();
  if (query.engine === 'libretranslate' && !query.url) return resetTargets('Enter the address first');
  if (query.engine === 'deepl' && !query.key) return resetTargets('Enter the key first');
  const ask = ++asking;
  listed = true;
  resetTargets('Asking the engine…');
  setStatus(panel.status, 'Asking the engine for its languages…', 'busy');
  try {
    const answer = await c.languages(query);
    if (ask !== asking) return;
    const taken = new Set(current.map((t) => t.target.toLowerCase()));
    const offered = answer.targets.filter((t) => !taken.has(t.code.toLowerCase()));
    panel.target.replaceChildren(
      ...offered.map((t) => {
        const option = new Option(`${nativeName(t.code)} (${t.code})${t.name ? ` · ${t.name}` : ''}`, t.code);
        option.lang = langAttribute(t.code) ?? '';
        return option;
      }),
    );
    panel.target.disabled = offered.length === 0;
    if (offered.length === 0) panel.target.append(new Option('No other language from this engine', ''));
    setStatus(
      panel.status,
      `${answer.targets.length} languages from ${answer.source} with this engine.`,
      offered.length ? 'ok' : 'warn',
    );
  } catch (error) {
    if (ask !== asking) return;
    resetTargets('The engine did not answer');
    setStatus(panel.status, requestProblem(error), 'error');
  }
}

/** Lists the room's targets (the outputs panel's poll calls this). */
export async function refreshLanguages(): Promise<void> {
  const c = client();
  if (!c) {
    current = [];
    panel.list.replaceChildren();
    onTargets([]);
    return;
  }
  try {
    current = await c.translations();
    panel.list.replaceChildren(...current.map(row));
    if (current.length === 0)
      panel.list.append(element('li', 'No translations: every consumer gets the original.', 'hint'));
    onTargets(current.map((t) => t.target));
  } catch (error) {
    setStatus(panel.status, requestProblem(error), 'error');
  }
  if (connectedRoom !== c.room) {
    connectedRoom = c.room;
    // Listed when the operator comes to the form (focus), not at each load: an editor that never
    // adds a language never asks an engine (which may not run here at all).
    listed = false;
    resetTargets('Choose the engine, then list its languages');
    try {
      panel.vocabulary.value = (await c.vocabulary()).join('\n');
    } catch {
      // Said by the list's error above; the field stays as typed.
    }
  }
}

function newTranslation(): NewTranslation | undefined {
  const target = panel.target.value;
  if (!target) return undefined;
  const { engine, url, key, source } = engineQuery();
  return {
    target,
    engine,
    ...(url ? { url } : {}),
    ...(key ? { key } : {}),
    ...(source ? { source } : {}),
  };
}

/**
 * Wires the panel. `connected`: the outputs client for the room and token typed (undefined when
 * not connected); `targets`: told the room's targets after each refresh.
 */
export function startLanguagesPanel(
  connected: () => OutputsClient | undefined,
  targets: (targets: string[]) => void,
): void {
  client = connected;
  onTargets = targets;
  showFields();
  panel.engine.addEventListener('change', () => {
    showFields();
    void listTargets();
  });
  for (const input of [panel.url, panel.key, panel.source])
    input.addEventListener('change', () => void listTargets());
  panel.listButton.addEventListener('click', () => void listTargets());
  panel.form.addEventListener('focusin', () => {
    if (!listed) void listTargets();
  });
  resetTargets('Connect the output room first');
  panel.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const translation = newTranslation();
    if (!translation) {
      setStatus(panel.status, 'Choose a language the engine offers first.', 'warn');
      return;
    }
    void act(`Added ${translation.target}`, (c) => c.addTranslation(translation)).then((added) => {
      if (!added) return;
      // The key went to the service; it is never shown again.
      panel.key.value = '';
      void listTargets();
    });
  });
  panel.vocabularyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const terms = panel.vocabulary.value
      .split('\n')
      .map((term) => term.trim())
      .filter(Boolean);
    void act(`Saved ${terms.length} ${terms.length === 1 ? 'name' : 'names'}`, async (c) => {
      panel.vocabulary.value = (await c.setVocabulary(terms)).join('\n');
    });
  });
}
