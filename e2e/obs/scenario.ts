/**
 * The OBS native captions scenario, run by obs-captions.test.ts inside a private network namespace
 * (`unshare --net`): relay and ui from the sources, a private nginx-rtmp, a real OBS Studio under
 * Xvfb, and Chromium showing the overlay with the `obs` option. Captions published to the output
 * room reach OBS through the overlay; ffmpeg records OBS's stream and reads the CEA-608 captions
 * back. Prints one JSON line (the result) last; every process and the temp folder are cleaned up.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CaptionInput } from '@live-captions/relay-client';
import { createPublisher, NodeWebSocket } from '@live-captions/relay-client/node';
import { newToken } from '@live-captions/secret-files';
import { buildPages } from '@live-captions/web';
import { captionChunks, ObsWebSocket } from '@live-captions/web/obs-logic';
import type { Page } from 'playwright-core';
import { screenshot } from '../browser/browser.js';
import { processLogs, startRelayUi } from '../browser/relay-ui.js';
import { type ServiceProcess, until } from '../deploy/helpers/processes.js';
import {
  OBS_PORT,
  type Program,
  readCaptions,
  SYSTEM_PATH,
  startNginx,
  startObs,
  startRecorder,
  startXvfb,
  writeObsHome,
} from './obs-rig.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { chromium } = createRequire(join(ROOT, 'packages/web/package.json'))(
  'playwright-core',
) as typeof import('playwright-core');

/** What the test publishes: an interim (never sent to OBS), finals short, long and accented. */
export const PUBLISHED: CaptionInput[] = [
  { id: 1, interm: 'Hello every' },
  { id: 1, final: 'Hello everyone, and welcome.' },
  {
    id: 2,
    final:
      'Tonight we look at the budget for next year, then we elect the new board, and finally we take questions from the room.',
  },
  // Characters 608 lacks: OBS would end the caption at the first of them.
  { id: 3, final: 'Café… it’s 5€ – déjà vu!' },
  { id: 5, final: 'First question, please.' },
];
/** Published after OBS restarted. */
export const AFTER_RESTART: CaptionInput = { id: 4, final: 'We are back after the restart.' };

export interface ScenarioResult {
  /** The overlay link the links hub built (secrets elided). */
  hubLink: string;
  /** The overlay's OBS state before the stream started, its notice, and once streaming. */
  beforeStream: { state?: string; notice: string; noticeVisible: boolean };
  live: { state?: string; noticeVisible: boolean };
  wrongPassword: { state?: string; notice: string };
  /** The 608 captions the overlay should have sent, in order. */
  expected: string[];
  /** The captions read back from the stream (ffmpeg), in order. */
  cues: { start: string; text: string }[];
  /** The overlay's OBS state while OBS was gone, then after it came back. */
  restartStates: (string | undefined)[];
  cuesAfterRestart: { start: string; text: string }[];
  pageErrors: string[];
  seconds: Record<string, number>;
}

const state = (page: Page) => page.evaluate(() => document.body.dataset.obs);
const notice = (page: Page) =>
  page.evaluate(() => {
    const element = document.getElementById('obs-state')!;
    return { notice: element.textContent ?? '', noticeVisible: !element.hidden };
  });

async function main(): Promise<ScenarioResult> {
  const began = Date.now();
  const seconds: Record<string, number> = {};
  const mark = (name: string) => {
    seconds[name] = (Date.now() - began) / 1000;
  };
  execFileSync('ip', ['link', 'set', 'lo', 'up'], { env: { ...process.env, PATH: SYSTEM_PATH } });
  await buildPages();
  const dir = mkdtempSync(join(tmpdir(), 'e2e-obs-'));
  const services: ServiceProcess[] = [];
  const programs: Program[] = [];
  const closers: (() => Promise<unknown> | unknown)[] = [];
  try {
    // Relay and ui, as the browser suites start them.
    const servers = await startRelayUi({
      dir,
      rooms: { source: 'obs-source', output: 'obs-output' },
      uiEnv: { CAPTURE_URL: '' },
    });
    services.push(...servers.processes());
    const { relayUrl, uiOrigin, secrets, tokens } = servers;

    const password = newToken().slice(0, 24);
    const home = join(dir, 'home');
    writeObsHome(home, password);
    programs.push(startNginx(join(dir, 'nginx')));
    const { xvfb, display } = await startXvfb();
    programs.push(xvfb);
    let obs = startObs(home, display);
    programs.push(obs);
    await servers.ready();
    mark('servers');

    // The test's own OBS WebSocket client starts the stream once the overlay has seen it off.
    const control = new ObsWebSocket({
      url: `ws://127.0.0.1:${OBS_PORT}`,
      password,
      WebSocket: NodeWebSocket,
    });
    closers.push(() => control.close());
    await until('OBS WebSocket', () => control.state === 'identified', 30_000);
    mark('obs');

    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      chromiumSandbox: false,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    closers.push(() => browser.close());
    const pageErrors: string[] = [];
    const overlay = (obsPassword: string) =>
      `${uiOrigin}/overlay.html#${new URLSearchParams({
        relayUrl,
        room: secrets.outputRoom,
        relayReadToken: tokens.outputRead,
        obs: String(OBS_PORT),
        obspw: obsPassword,
      })}`;
    // The overlay link as an operator gets it: from the links hub's fields.
    const hub = await browser.newPage();
    await hub.goto(`${uiOrigin}/links.html`);
    await hub.fill('#relay-url', relayUrl);
    await hub.fill('#output-room', secrets.outputRoom);
    await hub.fill('#output-read', tokens.outputRead);
    await hub.fill('#showtime', '0'); // no idle clear: the test counts the captions OBS accepted
    await hub.fill('#obs-port', String(OBS_PORT));
    await hub.fill('#obs-password', password);
    const hubLink = await hub.inputValue('#overlay-link');
    await screenshot(hub, 'obs-links-hub');
    await hub.close();
    const page = await browser.newPage({ viewport: { width: 320, height: 180 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && pageErrors.push(message.text()));
    await page.goto(hubLink);
    await page.waitForFunction(() => document.body.dataset.obs === 'not-streaming', undefined, {
      timeout: 20_000,
    });
    const beforeStream = { state: await state(page), ...(await notice(page)) };
    await screenshot(page, 'obs-overlay-not-streaming');

    const wrong = await browser.newPage({ viewport: { width: 320, height: 180 } });
    await wrong.goto(overlay(`${password}x`));
    await wrong.waitForFunction(() => document.body.dataset.obs === 'auth-failed', undefined, {
      timeout: 20_000,
    });
    const wrongPassword = { state: await state(wrong), notice: (await notice(wrong)).notice };
    await wrong.close();
    mark('overlay');

    const started = await control.request('StartStream');
    if (started.requestStatus.code !== 100) throw new Error(`StartStream: ${JSON.stringify(started)}`);
    await page.waitForFunction(() => document.body.dataset.obs === 'live', undefined, { timeout: 20_000 });
    const live = { state: await state(page), noticeVisible: (await notice(page)).noticeVisible };
    mark('streaming');
    // Captions are published once the recorder reads the stream (it writes the file's header when
    // its probe of the stream is done): a caption in frames it never read would be missing for a
    // reason that is not the overlay's. The plain-colour picture makes only a few bytes a second.
    const flv = join(dir, 'cap.flv');
    const recorder = startRecorder(flv);
    programs.push(recorder);
    await until('the recording', () => existsSync(flv) && statSync(flv).size > 0, 30_000);
    mark('recording');

    const publisher = createPublisher({ url: relayUrl, room: secrets.outputRoom, token: tokens.outputWrite });
    closers.push(() => publisher.close());
    for (const caption of PUBLISHED) publisher.publish(caption);
    const expected = PUBLISHED.flatMap((caption) =>
      'final' in caption ? captionChunks(caption.final!) : [],
    );
    await page.waitForFunction(
      (count) => Number(document.body.dataset.obsSent ?? 0) >= count,
      expected.length,
      { timeout: 60_000 },
    );
    mark('sent');
    // The last caption's frames still have to pass nginx to the recorder.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await recorder.finish();
    const cues = readCaptions(flv);
    mark('decoded');

    // OBS quits and starts again (streaming at once): the overlay reconnects by itself.
    const sentBefore = Number(await page.evaluate(() => document.body.dataset.obsSent));
    await obs.stop();
    await page.waitForFunction(() => document.body.dataset.obs === 'unreachable', undefined, {
      timeout: 20_000,
    });
    const restartStates = [await state(page)];
    obs = startObs(home, display, true);
    programs.push(obs);
    await page.waitForFunction(() => document.body.dataset.obs === 'live', undefined, { timeout: 60_000 });
    restartStates.push(await state(page));
    mark('reconnected');
    const flvAfter = join(dir, 'after.flv');
    const recorderAfter = startRecorder(flvAfter);
    programs.push(recorderAfter);
    await until('the second recording', () => existsSync(flvAfter) && statSync(flvAfter).size > 0, 30_000);
    publisher.publish(AFTER_RESTART);
    await page.waitForFunction((count) => Number(document.body.dataset.obsSent) > count, sentBefore, {
      timeout: 30_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await recorderAfter.finish();
    const cuesAfterRestart = readCaptions(flvAfter);
    mark('restart');
    return {
      hubLink: hubLink.replace(/(Token|obspw)=[^&]+/g, '$1=…'),
      beforeStream,
      live,
      wrongPassword,
      expected,
      cues,
      restartStates,
      cuesAfterRestart,
      pageErrors,
      seconds,
    };
  } catch (error) {
    throw new Error(`${(error as Error).stack}\n${processLogs([...services, ...programs])}`);
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => {});
    await Promise.all([...programs.reverse().map((p) => p.stop()), ...services.map((s) => s.stop())]);
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (result) => {
    process.stdout.write(`\n${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  },
);
