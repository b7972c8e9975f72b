/**
 * The browser suite's realtime outage scenarios (issue 26): the gateway stopped for 20 s
 * mid-speech while the capture page streams over the realtime transport, and a gateway without
 * its VAD model, where Realtime is not offered. They continue the session of captions.test.ts:
 * its capture page, with the access token already typed in.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import { decodeWav, SAMPLE_RATE } from '@live-captions/audio';
import { screenshot } from './browser.js';
import { gatewayOutage, OUTAGE_MS } from './gateway-outage.js';
import { type Session, until } from './session.js';

/** One loop of chromium's fake microphone (the clip and its pause), in seconds: one utterance. */
function loopSeconds(session: Session): number {
  const wav = readFileSync(join(session.scratch, 'microphone.wav'));
  return decodeWav(wav, { minSeconds: 0, maxSeconds: Number.POSITIVE_INFINITY }).samples.length / SAMPLE_RATE;
}

const statusText = (session: Session) => session.capture!.textContent('#capture-status').then((t) => t ?? '');

/**
 * The gateway stops for 20 s mid-speech: the page keeps capturing, shows what it keeps, and once
 * the gateway is back, with no click, every utterance spoken before, during and after the outage
 * is captioned once (one final per loop of the microphone, none twice).
 */
export async function realtimeOutage(session: Session): Promise<void> {
  const { stack, sourceCaptions } = session;
  const capture = session.capture!;
  const before = sourceCaptions.length;
  const upgradesBefore = stack.proxy.upgrades.length;
  const startedAt = Date.now();
  await capture.click('#start');
  await until(session, 'a realtime final before the outage', () => sourceCaptions.length > before, 45_000);

  const atOutage = sourceCaptions.length;
  await gatewayOutage(session, 'capture-realtime-outage');
  const outageUtterances = Math.floor(OUTAGE_MS / 1000 / loopSeconds(session));
  // Caught up: the outage's utterances captioned, the page listening with under 4 s kept (a
  // gateway message, such as a skip to the live edge, would replace "Listening").
  await until(
    session,
    'the outage’s utterances captioned and capture caught up',
    async () => {
      const status = await statusText(session);
      const buffered = Number(/buffered (\d+\.\d) s/.exec(status)?.[1] ?? Number.NaN);
      return (
        status.startsWith('Listening') && buffered < 4 && sourceCaptions.length - atOutage >= outageUtterances
      );
    },
    90_000,
  );
  // And what is spoken after it.
  const caughtUp = sourceCaptions.length;
  await until(session, 'a final after the outage', () => sourceCaptions.length > caughtUp, 45_000);
  await capture.click('#stop');
  const spokenSeconds = (Date.now() - startedAt) / 1000;
  await capture.waitForFunction(
    () => document.querySelector('#capture-status')?.textContent?.startsWith('Stopped ·'),
    null,
    { timeout: 30_000 },
  );
  expect(await capture.isHidden('#failure')).toBe(true);
  // Reconnected by itself: refused while the gateway was away, then one that opened.
  expect(stack.proxy.upgrades.length).toBeGreaterThan(upgradesBefore + 1);

  // One final per loop spoken: none lost, none twice. The microphone opens a moment after the
  // click and the last loop may be cut by Stop, hence one loop of slack below.
  const finals = sourceCaptions.slice(before);
  for (const caption of finals) expect(caption).toMatchObject({ final: 'test', ln: 'en' });
  expect(new Set(finals.map((caption) => caption.id)).size).toBe(finals.length);
  const loops = spokenSeconds / loopSeconds(session);
  expect(finals.length).toBeGreaterThanOrEqual(Math.floor(loops) - 1);
  expect(finals.length).toBeLessThanOrEqual(Math.ceil(loops));
  expect(finals.length).toBeGreaterThanOrEqual(3 + outageUtterances);
}

/**
 * A gateway without its VAD model: `/health` says Realtime is unavailable, the capture page
 * disables the choice with the reason, and a `?transport=realtime` link says so and uses rolling
 * windows; once the model is back, Realtime is offered again and the link's choice applies.
 */
export async function realtimeUnavailable(session: Session): Promise<void> {
  const { stack } = session;
  const capture = session.capture!;
  const missing = join(stack.dir, 'no-such-silero.bin');
  await stack.stopGateway();
  await stack.startGateway({ CAPTION_REALTIME_VAD_MODEL: missing });
  try {
    await capture.goto(`${stack.captureUrl}?transport=realtime`);
    await capture.waitForSelector('#start:not([disabled])');
    await capture.waitForSelector('#transport option[value="realtime"]:disabled', { state: 'attached' });
    expect(await capture.inputValue('#transport')).toBe('rolling');
    const reason = `the VAD model is not loaded (VAD model ${missing} not found)`;
    expect(await capture.textContent('#transport option[value="realtime"]')).toBe('Realtime (unavailable)');
    expect(await capture.textContent('#transport-unavailable')).toBe(
      `Realtime is unavailable here: ${reason}.`,
    );
    expect(await capture.isVisible('#transport-unavailable')).toBe(true);
    expect(await capture.textContent('#transport-status')).toBe(
      `Transport: rolling windows (realtime was asked for but is unavailable: ${reason})`,
    );
    await screenshot(capture, 'capture-realtime-unavailable');
  } finally {
    await stack.stopGateway();
    await stack.startGateway();
  }
  await capture.waitForFunction(
    () =>
      (document.querySelector('#transport') as HTMLSelectElement | null)?.value === 'realtime' &&
      document.querySelector('#transport-status')?.textContent ===
        'Transport: realtime (WebSocket) (from the link)',
    null,
    { timeout: 20_000 },
  );
  expect(await capture.isHidden('#transport-unavailable')).toBe(true);
}
