/**
 * The speech gateway process of `pnpm bench conference` (a): the service's own app
 * (`@live-captions/speech/embedded`, its configuration from the environment as `src/index.ts`
 * reads it) in front of {@link instantEngine} instead of whisper.cpp. Started by the bench as a
 * process of its own so that its CPU and memory are measured like the service's. Bench only.
 */
import { createLogger, listening } from '@live-captions/runtime';
import { createApp, loadConfig } from '@live-captions/speech/embedded';
import { instantEngine } from './instant-engine.js';

const logger = createLogger('speech');

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const queue = instantEngine();
  await queue.start();
  const { app, realtime } = createApp({ config, queue, logger });
  const server = app.listen(config.port, config.bind);
  realtime.attach(server);
  const port = await listening(server);
  // The line the harness waits for, as the service logs it.
  logger.info(
    { bind: config.bind, port, backend: 'instant-engine', auth: config.apiKey !== undefined },
    'speech gateway listening',
  );
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'instant gateway failed to start');
  process.exit(1);
});
