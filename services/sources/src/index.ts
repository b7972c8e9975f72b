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
import { createSources } from './app.js';
import { loadConfig, sourcesEnvironment } from './config.js';

const log = createLogger('sources');

runService(log, async () => {
  const config = loadConfig(sourcesEnvironment());
  let rooms = readRelayRooms(config.CAPTION_RELAY_CONFIG);
  const sources = await createSources(
    { ...config, SOURCES_DATA_DIR: resolve(config.SOURCES_DATA_DIR) },
    log,
    () => rooms,
  );
  const server = sources.app.listen(config.SOURCES_PORT, config.SOURCES_BIND);
  const port = await listening(server);
  sources.listening(port);
  log.info(
    {
      bind: config.SOURCES_BIND,
      port,
      rooms: rooms.size,
      database: sources.database,
      leases: sources.leases.kind,
      rtmpPort: config.SOURCES_RTMP_PORT,
      srtPorts: config.SOURCES_SRT_PORTS.join('-'),
      maxPerNode: config.SOURCES_MAX_PER_NODE,
    },
    'sources listening',
  );

  // SIGHUP re-reads the relay's config file (rooms, tokens); an invalid file keeps the running one.
  reloadOnHangup(log, 'rooms', () => {
    rooms = readRelayRooms(config.CAPTION_RELAY_CONFIG);
    return { rooms: rooms.size };
  });

  stopOnSignals(log, async () => {
    await closeServer(server);
    await sources.close();
  });
});
