import { resolve } from 'node:path';
import { createLogger, listening, runService, stopOnSignals } from '@live-captions/runtime';
import { readRooms } from './adapters/relay-rooms.js';
import { createOutputs } from './app.js';
import { loadConfig } from './config.js';

const log = createLogger('outputs');

runService(log, async () => {
  const config = loadConfig();
  let rooms = readRooms(config.CAPTION_RELAY_CONFIG);
  const outputs = await createOutputs(
    { ...config, OUTPUTS_DATA_DIR: resolve(config.OUTPUTS_DATA_DIR) },
    log,
    () => rooms,
  );
  const server = outputs.app.listen(config.OUTPUTS_PORT, config.OUTPUTS_BIND);
  const port = await listening(server);
  log.info(
    {
      bind: config.OUTPUTS_BIND,
      port,
      rooms: rooms.size,
      database: outputs.database,
      leases: outputs.leases.kind,
      allowedHosts: [...config.allowedHosts],
    },
    'outputs listening',
  );

  // SIGHUP re-reads the relay's config file (rooms, tokens); an invalid file keeps the running one.
  process.on('SIGHUP', () => {
    try {
      rooms = readRooms(config.CAPTION_RELAY_CONFIG);
      log.info({ rooms: rooms.size }, 'rooms reloaded');
      void outputs.supervisor.check();
    } catch (error) {
      log.error({ err: (error as Error).message }, 'reload refused; keeping the running rooms');
    }
  });

  stopOnSignals(log, async () => {
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeAllConnections();
    await closed;
    await outputs.close();
  });
});
