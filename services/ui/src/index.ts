/**
 * UI service process: read config (refuse to start on a wrong variable), check that the pages
 * are built, listen on UI_BIND/UI_PORT, stop on SIGTERM/SIGINT.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, createLogger, listening, runService, stopOnSignals } from '@live-captions/runtime';
import { uiDir } from '@live-captions/web';
import { createUiApp } from './app.js';
import { loadConfig } from './config.js';

const logger = createLogger('ui');

runService(logger, async () => {
  const config = loadConfig();
  if (!existsSync(join(uiDir, 'editor.html'))) {
    throw new ConfigError([`the pages are not built (${uiDir} is missing): run \`pnpm build\` first`]);
  }
  const app = createUiApp({ config, logger });
  const server = app.listen(config.port, config.bind);
  const port = await listening(server);
  logger.info(
    {
      bind: config.bind,
      port,
      home: config.captureUrl ? 'links.html' : 'index.html',
      relayUrl: config.relayUrl,
      captureUrl: config.captureUrl,
      outputsUrl: config.outputsUrl,
      sourcesUrl: config.sourcesUrl,
      relayApiUrl: config.relayApiUrl,
      calendarApiUrl: config.calendarApiUrl,
    },
    'ui listening',
  );
  stopOnSignals(logger, async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  });
});
