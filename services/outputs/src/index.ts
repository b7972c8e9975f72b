import { resolve } from 'node:path';
import { readRelayRooms } from '@live-captions/relay-client/node';
import {
  closeServer,
  createLogger,
  listening,
  reloadOnHangup,
  runService,
  stopOnSignals,
} from '@live-captions/runtime';
import { createOutputs } from './app.js';
import { loadConfig } from './config.js';

const log = createLogger('outputs');

runService(log, async () => {
  const config = loadConfig();
  let rooms = readRelayRooms(config.CAPTION_RELAY_CONFIG);
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
  reloadOnHangup(log, 'rooms', () => {
    rooms = readRelayRooms(config.CAPTION_RELAY_CONFIG);
    void outputs.supervisor.check();
    return { rooms: rooms.size };
  });

  stopOnSignals(log, async () => {
    await closeServer(server);
    await outputs.close();
  });
});
