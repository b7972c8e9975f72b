/**
 * The operator's loop keeps pace and survives (issue 26), in chromium on a stack started here:
 * the editor (editor-scenarios.ts), then the overlay and the links hub (overlay-scenarios.ts).
 * Captions are published into the rooms from the test, as the capture page would.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { wordRules } from './capture-words-scenario.js';
import {
  copyOverlayFromHub,
  exports,
  lineBreaks,
  liveCorrections,
  longCaption,
  shortcuts,
  timedPipeline,
} from './editor-scenarios.js';
import { captureTokenTab, twoPublishers } from './first-event-scenarios.js';
import { type OperatorLoop, openLoop } from './operator-loop.js';
import { hubOpenAndToken, visualLines, wrongTokenNotice } from './overlay-scenarios.js';
import { closeSession, printPages } from './session.js';

jest.setTimeout(90_000);

let loop: OperatorLoop;

beforeAll(async () => {
  loop = await openLoop();
}, 120_000);

afterAll(async () => {
  loop?.source.close();
  loop?.output.close();
  if (process.env.E2E_DEBUG && loop) await printPages(loop.session);
  await closeSession(loop?.session);
});

describe('the editor keeps pace', () => {
  test('timed 5 s: ten captions 1 s apart each reach the overlay 5 ± 0.5 s after they arrived', () =>
    timedPipeline(loop));
  test('shortcuts: Alt+X clears the overlay, Esc skips the caption under review', () => shortcuts(loop));
  test('live: each caption goes out as it arrives; a correction replaces it on the overlay', () =>
    liveCorrections(loop));
  test('Shift+Enter line breaks reach the overlay as line breaks', () => lineBreaks(loop));
  test('a 9,000-character caption reaches the overlay whole, in pieces, and the room keeps working', () =>
    longCaption(loop));
  test('the reviewed captions download as SRT, WebVTT and text with the times they went out', () =>
    exports(loop));
  test('"Copy overlay link" from the hub’s editor link keeps the overlay’s look and works', () =>
    copyOverlayFromHub(loop));
});

describe('the overlay and the links hub', () => {
  test('a wrong token shows a notice, an unreachable relay only with notice=1: on air the captions stay and nothing shows', () =>
    wrongTokenNotice(loop));
  test('a limit in visual lines, at the top, in serif; it fits a phone', () => visualLines(loop));
  test('the hub: Open beside Copy, the token from the start link, kept by the tab across a reload, remembered on the device only when asked', () =>
    hubOpenAndToken(loop));
  test(
    'capture: a word replacement applies before publishing; the rules are kept and export as a file',
    () => wordRules(loop),
    120_000,
  );
  test('capture: a token typed and left with Tab unlocks Start, as Enter does', () => captureTokenTab(loop));
  test(
    'two capture pages in one room both warn; the warning goes once one is left',
    () => twoPublishers(loop),
    150_000,
  );
  test('no page broke its CSP or threw', () => {
    // The relay restarted under the pages; the capture page's first /health before its token.
    const expected = [/WebSocket connection to .* failed/, /status of 401 \(Unauthorized\)/];
    const unexpected = Object.entries(loop.session.errors).flatMap(([page, list]) =>
      list
        .filter((text) => !expected.some((pattern) => pattern.test(text)))
        .map((text) => `${page}: ${text}`),
    );
    expect(unexpected).toEqual([]);
  });
});
