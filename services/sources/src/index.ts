/**
 * The service's start, its composition root. It reads like the outputs' on purpose: every step
 * is one shared function (runService, RoomsWatch.follow, superviseRooms, listening,
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
import { createSources } from './app.js';
import { loadConfig, sourcesEnvironment } from './config.js';

const log = createLogger('sources');

runService(log, async () => {
  const config = loadConfig(sourcesEnvironment());
  // The rooms of the relay's file and of its rooms API, followed while the service runs.
  const rooms = await RoomsWatch.follow({
    relayUrl: config.RELAY_URL,
    apiKey: config.apiKey,
    configPath: config.CAPTION_RELAY_CONFIG,
    logger: log,
  });
  const sources = await createSources(
    { ...config, SOURCES_DATA_DIR: resolve(config.SOURCES_DATA_DIR) },
    log,
    () => rooms.rooms(),
    () => rooms.captionRooms(),
  );
  // A change of the rooms, and SIGHUP's re-read of the relay's file, checks them at once.
  superviseRooms(log, rooms, () => sources.supervisor.check());
  const server = sources.app.listen(config.SOURCES_PORT, config.SOURCES_BIND);
  const port = await listening(server);
  sources.listening(port);
  log.info(
    {
      bind: config.SOURCES_BIND,
      port,
      rooms: rooms.rooms().size,
      database: sources.database,
      leases: sources.leases.kind,
      rtmpPort: config.SOURCES_RTMP_PORT,
      srtPorts: config.SOURCES_SRT_PORTS.join('-'),
      maxPerNode: config.SOURCES_MAX_PER_NODE,
      calendar: config.SOURCES_CALENDAR_URL,
      calendarWrites: config.SOURCES_CALENDAR_TOKEN !== undefined,
    },
    'sources listening',
  );

  stopOnSignals(log, async () => {
    await rooms.stop();
    await closeServer(server);
    await sources.close();
  });
});
