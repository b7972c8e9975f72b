/**
 * The built sites: every page has the shared head (pages.ts) around its body, and every stylesheet
 * and script a page names is a file of its site (site-config.js aside: the ui service writes it).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
});
