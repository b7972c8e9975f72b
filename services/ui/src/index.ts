/**
 * UI service process: read config (refuse to start on a wrong variable), check that the pages
 * are built, listen on UI_BIND/UI_PORT, stop on SIGTERM/SIGINT.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, createLogger } from '@live-captions/runtime';
import { uiDir } from '@live-captions/web';
import { createUiApp } from './app.js';
import { loadConfig } from './config.js';

const logger = createLogger('ui');

try {
  const config = loadConfig();
  if (!existsSync(join(uiDir, 'editor.html'))) {
    console.error(`The pages are not built (${uiDir} is missing): run \`pnpm build\` first.`);
    process.exit(1);
  }
  const app = createUiApp({ config });
  const server = app.listen(config.port, config.bind);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  logger.info(
    {
      bind: config.bind,
      port: typeof address === 'object' && address !== null ? address.port : config.port,
      home: config.captureUrl ? 'links.html' : 'index.html',
      relayUrl: config.relayUrl,
      captureUrl: config.captureUrl,
    },
    'ui listening',
  );
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  logger.fatal({ err: error }, 'ui failed to start');
  process.exit(1);
}
