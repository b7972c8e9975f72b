/**
 * The built sites: every page has the shared head (pages.ts) around its body, and every stylesheet
 * and script a page names is a file of its site (site-config.js aside: the ui service writes it).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildPages } from '../src/index.js';
import { PAGES } from '../src/pages.js';

let outDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'web-pages-'));
  await buildPages({ outDir });
}, 60_000);

afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the built pages', () => {
  for (const [site, pages] of Object.entries(PAGES)) {
    for (const [name, page] of Object.entries(pages)) {
      test(`${site}/${name}: the shared head, then the page's own body`, () => {
        const html = readFileSync(join(outDir, site, name), 'utf8');
        const source = readFileSync(new URL(`../static/${site}/${name}`, import.meta.url), 'utf8');
        expect(html.startsWith('<!doctype html>\n<html lang="en"')).toBe(true);
        const head = html.slice(html.indexOf('<head>'), html.indexOf('</head>'));
        expect(head).toContain('<meta charset="utf-8">');
        expect(head).toContain('<meta name="referrer" content="no-referrer">');
        expect(head).toMatch(/<meta name="viewport" content="width=device-width, initial-scale=1[^"]*">/);
        expect(head).toContain(`<title>${page.title}</title>`);
        // The body file holds no head of its own, and reaches the page unchanged.
        expect(source).not.toMatch(/<head[\s>]|<html|<meta/);
        expect(html.endsWith(`${source}</html>\n`)).toBe(true);
      });

      test(`${site}/${name}: every file it names is in the site`, () => {
        const html = readFileSync(join(outDir, site, name), 'utf8');
        const named = [...html.matchAll(/<(?:link|script)[^>]*\s(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
        expect(named.length).toBeGreaterThan(2);
        const missing = named.filter(
          (file) => file !== 'site-config.js' && !existsSync(join(outDir, site, file)),
        );
        expect(missing).toEqual([]);
      });
    }
  }

  test('each site ships the stylesheets its pages name, and no other', () => {
    for (const [site, pages] of Object.entries(PAGES)) {
      const shipped = readdirSync(join(outDir, site)).filter((file) => file.endsWith('.css'));
      const named = new Set(
        Object.values(pages).flatMap((page) =>
          page.stylesheets.map((sheet) => (typeof sheet === 'string' ? sheet : sheet.file)),
        ),
      );
      expect(shipped.sort()).toEqual([...named].sort());
    }
  });

  test('a build over a served folder never leaves a file missing, and removes what it no longer makes', async () => {
    const served = readdirSync(outDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(outDir.length + 1));
    expect(served.length).toBeGreaterThan(10);
    writeFileSync(join(outDir, 'ui', 'renamed-page.js'), '// a page an earlier build made');
    // What a server reading the folder during another test's build met: a 404 for a page's script.
    let done = false;
    const rebuilt = buildPages({ outDir }).finally(() => {
      done = true;
    });
    const missing = new Set<string>();
    let looks = 0;
    while (!done) {
      for (const file of served) if (!existsSync(join(outDir, file))) missing.add(file);
      looks += 1;
      await nextTurn();
    }
    const result = await rebuilt;
    expect(looks).toBeGreaterThan(1);
    expect([...missing]).toEqual([]);
    expect(existsSync(join(outDir, 'ui', 'renamed-page.js'))).toBe(false);
    expect(result.files.map((file) => file.slice(outDir.length + 1)).sort()).toEqual(served.sort());
    // Nothing of the build is left beside the folder.
    const beside = readdirSync(join(outDir, '..')).filter((name) =>
      name.startsWith(`${basename(outDir)}.build-`),
    );
    expect(beside).toEqual([]);
  }, 60_000);
});
