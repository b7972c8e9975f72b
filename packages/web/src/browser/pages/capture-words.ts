/// <reference lib="dom" />
/**
 * The capture page's vocabulary and word rules: the form, kept per device (localStorage) and
 * exportable as a file. The vocabulary (names and terms the model should expect) goes to the
 * gateway as the prompt, on either transport; the rules apply to every caption before it is
 * published.
 */
import { MAX_PROMPT_CHARS } from '@live-captions/audio';
import { applyWordRules, parseReplacements, type WordRules } from '@live-captions/capture';
import { byId, downloadText, loadJson } from '../lib/dom.js';

const KEY = 'capture-words';

interface WordSettings {
  vocabulary: string;
  replacements: string;
  maskProfanity: boolean;
}

const ui = {
  vocabulary: byId<HTMLTextAreaElement>('vocabulary'),
  replacements: byId<HTMLTextAreaElement>('replacements'),
  mask: byId<HTMLInputElement>('mask-profanity'),
  exportWords: byId<HTMLButtonElement>('export-words'),
};

function settings(): WordSettings {
  return {
    vocabulary: ui.vocabulary.value.trim(),
    replacements: ui.replacements.value,
    maskProfanity: ui.mask.checked,
  };
}

/** The names and terms typed (the prompt of windows and realtime sessions); empty: none. */
export function vocabulary(): string {
  // The field takes no more than the gateway does; a longer one kept from before is cut to fit.
  return ui.vocabulary.value.trim().slice(0, MAX_PROMPT_CHARS);
}

let rules: WordRules = { replacements: [], maskProfanity: false };

/** Every caption goes through here before it is shown, kept and published. */
export function applyWords(text: string): string {
  return applyWordRules(text, rules);
}

/** Restores the saved settings and keeps them as they change; `onVocabulary` on a new vocabulary. */
export function wireWords(onVocabulary: (text: string) => void): void {
  const saved = loadJson<WordSettings>(localStorage, KEY);
  ui.vocabulary.maxLength = MAX_PROMPT_CHARS;
  ui.vocabulary.value = saved.vocabulary ?? '';
  ui.replacements.value = saved.replacements ?? '';
  ui.mask.checked = saved.maskProfanity ?? false;
  const update = () => {
    const current = settings();
    rules = { replacements: parseReplacements(current.replacements), maskProfanity: current.maskProfanity };
    localStorage.setItem(KEY, JSON.stringify(current));
  };
  update();
  for (const element of [ui.replacements, ui.mask]) element.addEventListener('change', update);
  ui.vocabulary.addEventListener('change', () => {
    update();
    onVocabulary(vocabulary());
  });
  ui.exportWords.addEventListener('click', () =>
    downloadText(
      'caption-word-settings.json',
      `${JSON.stringify(settings(), null, 2)}\n`,
      'application/json',
    ),
  );
}
