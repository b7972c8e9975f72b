/**
 * The pages of each site and the one head they share. A page's file under static/ holds its body;
 * the build writes the document around it: charset, viewport, referrer policy, icon, then the
 * page's title, stylesheets and scripts as listed here. A site ships exactly the stylesheets its
 * pages name.
 */

/** A stylesheet under static/css, or one linked only for a media query (with an id for the script that switches it). */
export type Stylesheet = string | { file: string; media: string; id: string };

export interface Page {
  title: string;
  stylesheets: Stylesheet[];
  /** Deferred, in this order: bundles of this site, or the ui service's generated site-config.js. */
  scripts: string[];
  /** The root element's class, for stylesheets that style the page from there. */
  htmlClass?: string;
  /** The audience page reaches under a phone's notch (viewport-fit=cover). */
  fullBleed?: boolean;
  /** The `color-scheme` meta, for pages that draw their own light and dark themes. */
  colorScheme?: string;
}

/** What the operator pages (capture, landing, links hub, editor) build on. */
const OPERATOR = ['reset.css', 'base.css', 'components.css'];

/** A ui operator page: the operator stylesheets and its own; the site's config, then its bundle. */
const operatorPage = (title: string, stylesheets: string | string[], script: string): Page => ({
  title,
  stylesheets: [...OPERATOR, ...[stylesheets].flat()],
  scripts: ['site-config.js', script],
});

export const PAGES: Record<'capture' | 'ui', Record<string, Page>> = {
  capture: {
    // Served by the speech service, which writes no site-config.js: the page needs none.
    'index.html': {
      title: 'Capture · Live captions',
      stylesheets: [...OPERATOR, 'capture.css'],
      scripts: ['capture.js'],
    },
  },
  ui: {
    'index.html': operatorPage('Live captions', 'links.css', 'home.js'),
    'links.html': operatorPage('Links · Live captions', ['links.css', 'rooms-board.css'], 'links.js'),
    // Public (no token): the rooms an audience can open, and their door sheets when printed.
    'now.html': operatorPage('Captioning now · Live captions', 'now.css', 'now.js'),
    'editor.html': operatorPage('Editor · Live captions', 'editor.css', 'editor.js'),
    'overlay.html': {
      title: 'Captions overlay',
      htmlClass: 'overlay-page',
      stylesheets: ['overlay.css'],
      scripts: ['site-config.js', 'overlay.js'],
    },
    'audience.html': {
      title: 'Live captions',
      htmlClass: 'audience-page',
      fullBleed: true,
      colorScheme: 'light dark',
      stylesheets: [
        'reset.css',
        'audience.css',
        { file: 'audience-dark.css', media: '(prefers-color-scheme: dark)', id: 'dark-palette' },
      ],
      scripts: ['site-config.js', 'audience.js'],
    },
  },
};

export const stylesheetFile = (sheet: Stylesheet): string => (typeof sheet === 'string' ? sheet : sheet.file);

function stylesheetLink(sheet: Stylesheet): string {
  if (typeof sheet === 'string') return `<link rel="stylesheet" href="${sheet}">`;
  return `<link rel="stylesheet" href="${sheet.file}" id="${sheet.id}" media="${sheet.media}">`;
}

/** The whole document: the shared head with the page's own entries, then its body as written. */
export function pageDocument(page: Page, body: string): string {
  const viewport = `width=device-width, initial-scale=1${page.fullBleed ? ', viewport-fit=cover' : ''}`;
  const head = [
    '<meta charset="utf-8">',
    `<meta name="viewport" content="${viewport}">`,
    '<meta name="referrer" content="no-referrer">',
    ...(page.colorScheme ? [`<meta name="color-scheme" content="${page.colorScheme}">`] : []),
    `<title>${page.title}</title>`,
    '<link rel="icon" href="favicon.svg" type="image/svg+xml">',
    ...page.stylesheets.map(stylesheetLink),
    ...page.scripts.map((script) => `<script src="${script}" defer></script>`),
  ];
  const root = page.htmlClass ? `<html lang="en" class="${page.htmlClass}">` : '<html lang="en">';
  return `<!doctype html>\n${root}\n<head>\n${head.map((line) => `  ${line}\n`).join('')}</head>\n${body}</html>\n`;
}
