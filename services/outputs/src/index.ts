/**
 * The service's start, its composition root. It reads like the stream sources' on purpose:
 * every step is one shared function (runService, RoomsWatch.follow, superviseRooms, listening,
 * stopOnSignals, closeServer); what repeats is only their order, which a wrapper over both would
 * hide without sharing a rule.
 */
import { resolve } from 'node:path';
import { RoomsWatch } from '@live-captions/relay-client/node';
import {
  closeServer,
  createLogger,
  listening,
  runService,
  stopOnSignals,
  superviseRooms,
} from '@live-captions/runtime';
import { createOutputs } from './app.js';
import { loadConfig, outputsEnvironment } from './config.js';

const log = createLogger('outputs');

runService(log, async () => {
  const config = loadConfig(outputsEnvironment());
  // The rooms of the relay's file and of its rooms API, followed while the service runs.
  const rooms = await RoomsWatch.follow({
    relayUrl: config.RELAY_URL,
    apiKey: config.apiKey,
    configPath: config.CAPTION_RELAY_CONFIG,
    logger: log,
  });
  const outputs = await createOutputs(
    { ...config, OUTPUTS_DATA_DIR: resolve(config.OUTPUTS_DATA_DIR) },
    log,
    () => rooms.rooms(),
  );
  // A change of the rooms, and SIGHUP's re-read of the relay's file, checks them at once.
  superviseRooms(log, rooms, () => outputs.supervisor.check());
  const server = outputs.app.listen(config.OUTPUTS_PORT, config.OUTPUTS_BIND);
  const port = await listening(server);
  log.info(
    {
      bind: config.OUTPUTS_BIND,
      port,
      rooms: rooms.rooms().size,
      database: outputs.database,
      leases: outputs.leases.kind,
      allowedHosts: [...config.allowedHosts],
    },
    'outputs listening',
  );

  stopOnSignals(log, async () => {
    await rooms.stop();
    await closeServer(server);
    await outputs.close();
  });
});
