/**
 * OBS native captions with a real OBS Studio: the overlay (Chromium, `obs` option) forwards the
 * output room's captions to OBS's WebSocket, OBS embeds them in its stream as CEA-608, and ffmpeg
 * reads them back from the RTMP stream, text for text. Everything runs in scenario.ts inside a
 * private network namespace (OBS's WebSocket listens on every interface), started here.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, jest, test } from '@jest/globals';
import { FROM_SOURCE } from '@live-captions/test-services';
import type { ScenarioResult } from './scenario.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));

jest.setTimeout(180_000);

/** Runs the scenario in a new network namespace (as a normal user, in a user namespace too). */
function runScenario(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const unshare = process.getuid?.() === 0 ? ['--net'] : ['--map-root-user', '--net'];
  const child = spawn(
    'unshare',
    [...unshare, '--', process.execPath, ...FROM_SOURCE, join(HERE, 'scenario.ts')],
    { cwd: join(HERE, '../..'), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-30_000);
  });
  // The scenario cleans up after itself; past this, its whole process group goes.
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 170_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

test('captions published to the output room come out of a real OBS stream as CEA-608, text for text, also after OBS restarts', async () => {
  const run = await runScenario();
  if (run.code !== 0)
    throw new Error(`scenario failed (${run.code}):\n${run.stderr}\n${run.stdout.slice(-4000)}`);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ScenarioResult;
  console.log(
    `OBS scenario: ${JSON.stringify(result.seconds)}; cues: ${JSON.stringify(result.cues)}; after restart: ${JSON.stringify(result.cuesAfterRestart)}`,
  );

  // The links hub's OBS fields put the port and password in the overlay link's fragment.
  expect(result.hubLink).toMatch(
    /\/overlay\.html\?maxlines=3&showtime=0#relayUrl=.*&relayReadToken=…&obs=4455&obspw=…$/,
  );

  // Before the stream: the overlay says so, in its small notice; a wrong password is its own state.
  expect(result.beforeStream).toEqual({
    state: 'not-streaming',
    notice: 'CC: OBS is not streaming',
    noticeVisible: true,
  });
  expect(result.wrongPassword).toEqual({
    state: 'auth-failed',
    notice: 'CC: OBS refused the WebSocket password',
  });
  // Streaming: nothing over the picture.
  expect(result.live).toEqual({ state: 'live', noticeVisible: false });

  // The long caption became successive 608 captions of at most two 32-column rows.
  expect(result.expected.length).toBe(5);
  for (const chunk of result.expected) {
    expect(chunk.split('\n').length).toBeLessThanOrEqual(2);
    for (const row of chunk.split('\n')) expect(row.length).toBeLessThanOrEqual(32);
  }
  // Text for text, in order, each once, and no interim.
  expect(result.cues.map((cue) => cue.text)).toEqual(result.expected);
  expect(result.expected).toEqual([
    'Hello everyone, and welcome.',
    'Tonight we look at the budget\nfor next year, then we elect the',
    'new board, and finally we take\nquestions from the room.',
    'Café... it’s 5EUR - déjà vu!',
    'First question, please.',
  ]);

  // OBS quit and came back: the overlay said so, reconnected, and captions flow again.
  expect(result.restartStates).toEqual(['unreachable', 'live']);
  expect(result.cuesAfterRestart.map((cue) => cue.text)).toEqual(['We are back after the restart.']);
  // Chromium itself logs each refused reconnect attempt while OBS is away; nothing else may show.
  const refused = /^WebSocket connection to 'ws:\/\/127\.0\.0\.1:4455\/' failed: .*ERR_CONNECTION_REFUSED$/;
  expect(result.pageErrors.filter((error) => !refused.test(error))).toEqual([]);
});
