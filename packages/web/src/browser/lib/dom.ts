/// <reference lib="dom" />
/** Small DOM helpers shared by the pages. */
import type { SiteConfig } from '@live-captions/protocol';

/** The element with this id, or an error naming it (a page and its script out of step). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`Missing element #${id}`);
  return element as T;
}

/** A new element with its text and class: the panels build their list rows with it. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text = '',
  className = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** Sets a status line's text and its tone (`data-tone`, styled by CSS). */
export function setStatus(
  element: HTMLElement,
  text: string,
  tone: 'ok' | 'busy' | 'warn' | 'error' | 'idle' = 'idle',
): void {
  element.textContent = text;
  element.dataset.tone = tone;
}

/** Copies text, falling back to selecting an input for browsers without clipboard access. */
export async function copyText(text: string, fallback?: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!fallback) return false;
    fallback.focus();
    fallback.select();
    return false;
  }
}

/** Downloads text as a file (a Blob URL, nothing leaves the browser). */
export function downloadText(name: string, text: string, type = 'text/plain;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A JSON object kept in storage; `{}` when it is missing or unreadable (edited by hand, old format). */
export function loadJson<T>(storage: Storage, key: string): Partial<T> {
  try {
    return JSON.parse(storage.getItem(key) ?? '{}') as Partial<T>;
  } catch {
    return {};
  }
}

/** Removes tokens from the address bar once the page has read them. */
export function stripTokensFromAddress(cleanUrl: string, hadTokens: boolean): void {
  if (hadTokens) history.replaceState(history.state, '', cleanUrl);
}

/** `window.SITE_CONFIG`; `{}` on a page served without the UI service's /site-config.js. */
export function siteConfig(): Partial<SiteConfig> {
  return (window as unknown as { SITE_CONFIG?: SiteConfig }).SITE_CONFIG ?? {};
}

/** Language name in the reader's language, falling back to the code. */
export function languageName(code: string): string {
  try {
    const names = new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

export { formatSeconds } from '@live-captions/capture';
