/**
 * The package runs in the capture page (bundled for browsers) and in the stream sources service
 * (Node): its sources may use neither Node's modules and globals nor the DOM. Read from the files
 * themselves, so a new import or global is caught before a bundle or a service trips over it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';

const dir = new URL('../src/', import.meta.url);
const sources = readdirSync(dir)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, text: readFileSync(new URL(name, dir), 'utf8') }));
// Comments may name anything; code may not (`window` is mostly an audio window here).
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('browser-safe', () => {
  test('imports only its own modules and the browser-safe workspace packages', () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const { name, text } of sources) {
      const imports = [...code(text).matchAll(/from '([^']+)'/g)].map((m) => m[1]);
      for (const module of imports)
        expect(`${name}: ${module}`).toMatch(/: (\.\/[\w-]+\.js|@live-captions\/(audio|protocol))$/);
    }
  });

  test('uses no Node or DOM globals and pulls in no DOM typings', () => {
    const forbidden =
      /\b(process|Buffer|require|__dirname|document|navigator|localStorage|HTMLElement)\b|\bwindow\.(document|location|addEventListener)/;
    for (const { name, text } of sources) {
      expect(`${name}: ${forbidden.exec(code(text))?.[0] ?? ''}`).toBe(`${name}: `);
      expect(`${name}: ${/<reference lib=/.test(text)}`).toBe(`${name}: false`);
    }
  });
});
