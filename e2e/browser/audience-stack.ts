/**
 * The smaller stack the audience suite needs: the relay (generated config, default limits) and
 * the UI service serving the built pages, on free ports, the relay restartable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processLogs, startRelayUi } from './relay-ui.js';
import type { Stack } from './stack.js';

/** The browser stack's relay and UI service, with the output room the audience reads. */
export interface AudienceStack extends Pick<Stack, 'uiUrl' | 'relayUrl' | 'restartRelay' | 'stop' | 'logs'> {
  room: string;
  readToken: string;
  writeToken: string;
}

export async function startAudienceStack(): Promise<AudienceStack> {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-audience-'));
  const servers = await startRelayUi({
    dir,
    rooms: { source: 'audience-source', output: 'audience-output' },
    uiEnv: { CAPTURE_URL: '' },
  });
  const logs = () => processLogs(servers.processes());
  try {
    await servers.ready();
  } catch (error) {
    await servers.stop();
    throw new Error(`${(error as Error).message}\n${logs()}`);
  }
  return {
    uiUrl: `${servers.uiOrigin}/`,
    relayUrl: servers.relayUrl,
    room: servers.secrets.outputRoom,
    readToken: servers.tokens.outputRead,
    writeToken: servers.tokens.outputWrite,
    logs,
    restartRelay: () => servers.restartRelay(),
    async stop() {
      await servers.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
