/**
 * The UI service as an express app, assembled in order; `index.ts` adds config and listening.
 */

import { requestLog, securityHeaders, serviceMetrics } from '@live-captions/http';
import { createLogger, type Logger } from '@live-captions/runtime';
import { uiDir } from '@live-captions/web';
import express, { type Express } from 'express';
import type { UiConfig } from './config.js';
import { connectSources } from './domain/site-config.js';
import { pageRoutes } from './routes/pages.js';

export interface UiAppOptions {
  config: Pick<
    UiConfig,
    'relayUrl' | 'captureUrl' | 'outputsUrl' | 'sourcesUrl' | 'relayApiUrl' | 'calendarApiUrl'
  >;
  /** Built pages; default: `uiDir` of @live-captions/web. */
  assetsDir?: string;
  /** Access lines; default: the service's. */
  logger?: Logger;
}

export function createUiApp(options: UiAppOptions): Express {
  const { relayUrl, captureUrl, outputsUrl, sourcesUrl, relayApiUrl, calendarApiUrl } = options.config;
  const site = { relayUrl, captureUrl, outputsUrl, sourcesUrl, relayApiUrl, calendarApiUrl };
  const app = express();
  app.disable('x-powered-by');
  app.use(requestLog(options.logger ?? createLogger('ui')));
  const metrics = serviceMetrics('ui');
  app.use(metrics.track);
  // For Prometheus on the internal network; Traefik does not route it (compose.yaml).
  app.get('/metrics', metrics.serve);
  // Headers first, so that every answer (404s included) carries them.
  app.use(securityHeaders(connectSources(site)));
  app.get('/health', function health(_req, res) {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ready: true });
  });
  app.use(pageRoutes(options.assetsDir ?? uiDir, site));
  app.use(function notFound(_req, res) {
    res.status(404).type('text/plain').send('Not found\n');
  });
  return app;
}
