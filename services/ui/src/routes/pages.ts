import type { SiteConfig } from '@live-captions/protocol';
import express, { Router } from 'express';
import { siteConfigScript } from '../domain/site-config.js';

/**
 * `/`: the links hub when a capture host is configured, else the landing page;
 * `/site-config.js`; the built pages (editor.html, overlay.html, links.html, scripts, styles).
 */
export function pageRoutes(assetsDir: string, site: SiteConfig): Router {
  const router = Router();
  const script = siteConfigScript(site);
  const home = site.captureUrl ? 'links.html' : 'index.html';

  router.get('/', function root(_req, res, next) {
    res.setHeader('Cache-Control', 'no-cache');
    // `root` keeps the dot-file check to `home` itself: in a deployed image the assets live under
    // node_modules/.pnpm/..., a dot segment `send` refuses in a full path (the home page was 404).
    res.sendFile(home, { root: assetsDir }, (error) => error && next(error));
  });

  router.get('/site-config.js', function siteConfig(_req, res) {
    res.type('text/javascript; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache');
    res.send(script);
  });

  router.use(
    express.static(assetsDir, {
      index: false,
      dotfiles: 'ignore',
      redirect: false,
      setHeaders(res) {
        // Revalidate: a new build must reach the browser at the next load.
        res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  return router;
}
