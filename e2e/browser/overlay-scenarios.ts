/**
 * The overlay's and the links hub's scenarios of the operator's loop (issue 26), on the session of
 * operator-loop.test.ts, captions published straight into the output room: the notice for a wrong
 * token or an unreachable relay, the limit in visual lines, top position, a phone's screen, and the
 * hub's Open buttons, remembered token and `pnpm start` link.
 */
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { screenshot, watchErrors } from './browser.js';
import type { OperatorLoop } from './operator-loop.js';
import { fragment, type Session } from './session.js';

let outputCount = 0;
function show(loop: OperatorLoop, text: string): void {
  outputCount += 1;
  loop.output.publish({ final: text, id: `overlay-${outputCount}` });
}

async function openOverlay(session: Session, query: string, keys: Record<string, string>): Promise<Page> {
  const page = await session.context.newPage();
  await page.goto(`${session.stack.uiUrl}overlay.html?${query}#${fragment(keys)}`);
  return page;
}

const notice = (page: Page) =>
  page.$eval('#overlay-notice', (node) => ((node as HTMLElement).hidden ? '' : (node.textContent ?? '')));

export async function wrongTokenNotice(loop: OperatorLoop): Promise<void> {
  const { session } = loop;
  const { stack, errors } = session;
  const room = stack.rooms.output;
  const wrong = await openOverlay(session, '', { room, relayReadToken: 'x'.repeat(43) });
  errors.wrongToken = watchErrors(wrong);
  await wrong.waitForFunction(() => document.body.dataset.relay === 'stopped');
  expect(await notice(wrong)).toMatch(/refused \(wrong or old token\)/);
  await screenshot(wrong, 'overlay-wrong-token');
  // Fixed (the right link): the notice is gone.
  await wrong.goto(
    `${stack.uiUrl}overlay.html#${fragment({ room, relayReadToken: stack.tokens.outputRead })}`,
  );
  await wrong.waitForFunction(() => document.body.dataset.relay === 'joined');
  expect(await notice(wrong)).toBe('');
  await wrong.close();

  // The relay goes away (restarted). With notice=1 (a preview) the notice shows while it is
  // unreachable, then goes. On air (no notice=1, issue 43.3) the overlay keeps its caption and
  // shows nothing, its link's state only in body[data-relay] (for custom CSS).
  const keys = { room, relayReadToken: stack.tokens.outputRead };
  const watched = await openOverlay(session, 'notice=1', keys);
  errors.unreachable = watchErrors(watched);
  const onAir = await openOverlay(session, 'showtime=0', keys);
  errors.onAir = watchErrors(onAir);
  for (const page of [watched, onAir])
    await page.waitForFunction(() => document.body.dataset.relay === 'joined');
  show(loop, 'Still on the picture through a relay blip.');
  await onAir.waitForSelector('.caption-line:text("Still on the picture")');
  const shown = watched.waitForFunction(
    () => /unreachable/.test(document.querySelector('#overlay-notice:not([hidden])')?.textContent ?? ''),
    null,
    { timeout: 30_000, polling: 50 },
  );
  // Sampled every 50 ms on the on-air overlay: was it ever lost, did a notice ever show.
  await onAir.evaluate(() => {
    const seen = { lost: false, notice: false, captionGone: false };
    (window as unknown as { seen: typeof seen }).seen = seen;
    setInterval(() => {
      if (document.body.dataset.relay === 'lost') seen.lost = true;
      if (!(document.querySelector('#overlay-notice') as HTMLElement).hidden) seen.notice = true;
      if (!document.querySelector('.caption-line')) seen.captionGone = true;
    }, 50);
  });
  await stack.restartRelay();
  await shown;
  for (const page of [watched, onAir])
    await page.waitForFunction(() => document.body.dataset.relay === 'joined', null, { timeout: 30_000 });
  expect(await notice(watched)).toBe('');
  expect(await onAir.evaluate(() => (window as unknown as { seen: object }).seen)).toEqual({
    lost: true,
    notice: false,
    captionGone: false,
  });
  await watched.close();
  await onAir.close();
}

export async function visualLines(loop: OperatorLoop): Promise<void> {
  const { session } = loop;
  const keys = { room: session.stack.rooms.output, relayReadToken: session.stack.tokens.outputRead };
  const page = await openOverlay(session, 'maxlines=3&showtime=0&position=top&font=serif', keys);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.waitForFunction(() => document.body.dataset.relay === 'joined');
  const long = 'A caption long enough to need two lines of text at the default size on a 720p frame';
  for (const n of [1, 2, 3]) show(loop, `${long} (${n})`);
  await page.waitForFunction(
    (last) => Array.from(document.querySelectorAll('.caption-line')).some((n) => n.textContent === last),
    `${long} (3)`,
  );
  const measured = await page.$eval('#captions', (node) => {
    const box = node.getBoundingClientRect();
    const lineHeight = Number.parseFloat(getComputedStyle(node).lineHeight);
    return {
      lines: box.height / lineHeight,
      top: box.top,
      height: innerHeight,
      family: getComputedStyle(node).fontFamily,
    };
  });
  // Three long captions would be six lines: only what fits in three is shown, at the top.
  expect(measured.lines).toBeLessThanOrEqual(3.3);
  expect(measured.top).toBeLessThan(measured.height / 2);
  expect(measured.family).toMatch(/Georgia|serif/);
  await screenshot(page, 'overlay-lines-top');

  // A phone: nothing runs off the screen's sides.
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.$$eval('.caption-line', (nodes) =>
    nodes.some(
      (node) => node.getBoundingClientRect().right > innerWidth || node.getBoundingClientRect().left < 0,
    ),
  );
  expect(overflow).toBe(false);
  await screenshot(page, 'overlay-phone');
  await page.close();
}

export async function hubOpenAndToken({ session }: OperatorLoop): Promise<void> {
  const { stack, context, errors } = session;
  // `pnpm start`'s link: the token in the fragment fills the hub in and leaves the address bar.
  const hub = await context.newPage();
  errors.hubToken = watchErrors(hub);
  await hub.goto(`${stack.uiUrl}#${fragment({ token: stack.apiKey })}`);
  await hub.waitForFunction(
    () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
  );
  expect(hub.url()).not.toContain(stack.apiKey);
  // Open beside Copy.
  const [opened] = await Promise.all([
    context.waitForEvent('page'),
    hub.click('button[data-open="overlay-link"]'),
  ]);
  await opened.waitForFunction(() => document.body.dataset.relay === 'joined');
  await opened.close();
  // A reload of this tab keeps what it showed (issue 43.2: it showed "0 of 4 links ready"),
  // the token included, still out of the address bar; the hint says where the token lives.
  const allReady = (page: Page) =>
    page.waitForFunction(
      () => document.querySelector('#links-status')?.textContent === 'All four links are ready.',
    );
  await hub.fill('#maxlines', '2');
  await hub.reload();
  await allReady(hub);
  expect(await hub.inputValue('#api-key')).toBe(stack.apiKey);
  expect(await hub.inputValue('#maxlines')).toBe('2');
  expect(await hub.inputValue('#overlay-link')).toContain('maxlines=2');
  expect(hub.url()).not.toContain(stack.apiKey);
  expect(await hub.textContent('#api-key-hint')).toContain('CAPTION_API_KEY in secrets/caption-local.env');
  // Not remembered on the device unless asked: a new tab starts empty; ticked, it fills itself in.
  const fresh = async () => {
    const page = await context.newPage();
    errors[`hubTab${Object.keys(errors).length}`] = watchErrors(page);
    await page.goto(stack.uiUrl);
    return page;
  };
  let tab = await fresh();
  expect(await tab.inputValue('#api-key')).toBe('');
  expect(await tab.textContent('#links-status')).toBe('0 of 4 links ready.');
  await tab.fill('#api-key', stack.apiKey);
  await tab.check('#remember-token');
  await tab.click('#fetch');
  await tab.waitForFunction(
    () => document.querySelector('#fetch-status')?.textContent === 'Filled in from the capture host.',
  );
  await tab.close();
  tab = await fresh();
  await allReady(tab);
  expect(await tab.isChecked('#remember-token')).toBe(true);
  await tab.uncheck('#remember-token');
  await tab.close();
  tab = await fresh();
  expect(await tab.inputValue('#api-key')).toBe('');
  await tab.close();
  await hub.close();
}
