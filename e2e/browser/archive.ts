/**
 * The outputs service of a browser session: archiving the session's output room from now on.
 */
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { freePort, startService, until as waitFor } from '../deploy/helpers/processes.js';
import type { Session } from './session.js';

/**
 * The outputs service on the stack's relay, archiving the output room from now on (a first join
 * starts at the live edge): its address and a stop.
 */
export async function startArchive(session: Session): Promise<{ api: string; stop: () => Promise<unknown> }> {
  const { stack, scratch } = session;
  const port = await freePort();
  const outputs = startService('outputs', {
    LOG_LEVEL: 'warn',
    OUTPUTS_BIND: '127.0.0.1',
    OUTPUTS_PORT: String(port),
    OUTPUTS_DATA_DIR: join(scratch, 'outputs'),
    RELAY_URL: stack.relayUrl,
    CAPTION_RELAY_CONFIG: join(stack.dir, 'relay.private.json'),
  });
  const api = `http://127.0.0.1:${port}/rooms/${stack.rooms.output}`;
  const auth = { Authorization: `Bearer ${stack.tokens.outputWrite}` };
  try {
    await waitFor(
      'the outputs service',
      async () => (await fetch(`http://127.0.0.1:${port}/health`)).ok,
      // Started from its sources (tsx): slow on a loaded machine.
      120_000,
    );
    const added = await fetch(`${api}/destinations`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ kind: 'archive' }),
    });
    expect(added.status).toBe(201);
    await waitFor(
      'the archive sending',
      async () => {
        const list = (await (await fetch(`${api}/destinations`, { headers: auth })).json()) as {
          destinations: { state: string }[];
        };
        return list.destinations.every((d) => d.state === 'sending');
      },
      30_000,
    );
  } catch (error) {
    await outputs.stop();
    throw new Error(`${(error as Error).message}\n${outputs.output()}`);
  }
  return { api, stop: () => outputs.stop() };
}
