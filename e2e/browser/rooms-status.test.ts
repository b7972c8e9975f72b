/**
 * The rooms board's status at a glance in chromium, on the caption rooms stack (rooms-stack.ts:
 * relay with its rooms store, UI, speech gateway as the capture host): two real relay writers in
 * one room's source room make its row say so and stand out (words and colour), with the summary
 * line naming it; a room with a capture page shows its captions of the last minute and its
 * audience readers; a service the site lacks reads "unknown"; the workers' line comes from the
 * gateway's `/health`; axe finds nothing serious or critical with a room in trouble; 40 rooms
 * with their status on 1366x768 and on a phone.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import {
  createPublisher,
  createReader,
  type RelayPublisher,
  type RelayReader,
} from '@live-captions/relay-client/node';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, phoneContext, screenshot, watchErrors } from './browser.js';
import { layout, openHub, row, waitForText } from './rooms-pages.js';
import { type RoomsStack, startRoomsStack } from './rooms-stack.js';

jest.setTimeout(120_000);

let stack: RoomsStack;
let browser: Browser;
let desk: BrowserContext;
let hub: Page;
let errors: string[];
const closers: (RelayPublisher | RelayReader)[] = [];

beforeAll(async () => {
  stack = await startRoomsStack();
  browser = await launchBrowser('/dev/null');
  desk = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  for (const name of ['Main hall', 'Room B']) await stack.create(name);
}, 180_000);

afterAll(async () => {
  for (const client of closers) client.close();
  await browser?.close();
  await stack?.stop();
});

const hasText = (page: Page, selector: string, text: string) => waitForText(page, selector, text, stack.logs);

const room = async (id: string) => (await stack.rooms()).find((r) => r.id === id)!;

/** A joined writer of `id`'s source room (what a capture page or a stream source is to the relay). */
async function publisher(id: string): Promise<RelayPublisher> {
  const r = await room(id);
  const client = createPublisher({ url: stack.ui.relayUrl, room: r.sourceRoom, token: r.tokens.sourceWrite });
  closers.push(client);
  return client;
}

const cell = (id: string, part: string) => `#rooms tr[data-id="${id}"] .room-status .${part}`;

describe('the board at a glance', () => {
  test('a capture page: connected, its captions of the last minute and the readers of the room', async () => {
    hub = await openHub(desk, stack.hub, stack.apiKey);
    errors = watchErrors(hub);
    await row(hub, 'room-b').waitFor();
    await hasText(hub, cell('room-b', 'status-source'), 'No source connected');
    await hasText(hub, '#rooms-summary', 'All 3 rooms are fine');

    const capture = await publisher('room-b');
    for (let n = 1; n <= 3; n += 1)
      capture.publish({ final: `Caption ${n} in room B.`, id: `b-${n}`, ln: 'en' });
    const r = await room('room-b');
    for (let n = 0; n < 2; n += 1)
      closers.push(
        createReader({
          url: stack.ui.relayUrl,
          room: r.outputRoom,
          token: r.tokens.outputRead,
          onCaption() {},
        }),
      );
    await hasText(hub, cell('room-b', 'status-source'), 'Capture page connected');
    await hasText(hub, cell('room-b', 'status-captions'), '3 captions in the last minute');
    await hasText(hub, cell('room-b', 'status-audience'), '2 readers');
    // This site has no outputs service: that part is unknown, and not trouble.
    await hasText(hub, cell('room-b', 'status-outputs'), 'Destinations unknown');
    expect(await row(hub, 'room-b').getAttribute('data-trouble')).toBeNull();
    expect(await hub.locator(cell('room-b', 'status-trouble')).isHidden()).toBe(true);
  });

  test('two publishers at once: the row says so in words and stands out, the summary names it', async () => {
    await publisher('main-hall');
    await publisher('main-hall');
    await hasText(hub, cell('main-hall', 'status-trouble'), 'Needs attention: 2 publishers at once');
    await hasText(hub, '#rooms-summary', '1 of 3 rooms needs attention: Main hall');
    expect(await row(hub, 'main-hall').getAttribute('data-trouble')).toBe('true');
    // Colour too, not colour alone: the row's cells are tinted, the quiet rows' are not.
    const tint = (id: string) =>
      row(hub, id)
        .locator('td.room-status')
        .evaluate((node) => getComputedStyle(node).backgroundColor);
    expect(await tint('main-hall')).not.toBe(await tint('room-b'));
    expect(await hub.locator('#rooms-summary').getAttribute('aria-live')).toBe('polite');
    await screenshot(hub, 'rooms-status-trouble');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
  });

  test("the speech workers' line from the gateway's health", async () => {
    await hasText(hub, '#workers-status', 'Speech workers: 0 of 1 decode slot busy, 0 windows waiting');
    expect(await hub.locator('#workers-status').getAttribute('data-tone')).toBe('idle');
  });

  test('one publisher leaves: the room is fine again, and said so once', async () => {
    const second = closers.filter((c) => 'publish' in c).at(-1)!;
    second.close();
    await hasText(hub, '#rooms-summary', 'All 3 rooms are fine');
    expect(await row(hub, 'main-hall').getAttribute('data-trouble')).toBeNull();
    await hasText(hub, cell('main-hall', 'status-source'), 'Capture page connected');
    // The summary's text node is not replaced by refreshes that change nothing (no re-announcing).
    const marked = await hub.locator('#rooms-summary').evaluate((node) => {
      (node.firstChild as Text & { mark?: boolean }).mark = true;
      return true;
    });
    expect(marked).toBe(true);
    await hub.waitForTimeout(11_000);
    expect(
      await hub
        .locator('#rooms-summary')
        .evaluate((node) => (node.firstChild as Text & { mark?: boolean }).mark === true),
    ).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('40 rooms with their status', () => {
  beforeAll(async () => {
    const have = (await stack.rooms()).length;
    for (let n = have + 1; n <= 40; n += 1) await stack.create(`Room ${n} (Building K, level ${n % 4})`);
    await publisher('main-hall');
  });

  test('on 1366x768: a tidy line or two per room, no sideways scrolling, the room in trouble stands out', async () => {
    await hasText(hub, '#rooms-summary', '1 of 40 rooms needs attention: Main hall');
    await hasText(hub, cell('room-40-building-k-level-0', 'status-source'), 'No source connected');
    await screenshot(hub, 'rooms-status-40');
    const { sideways, bad } = await layout(hub, '#rooms tr.room:not([data-trouble])', 48);
    expect({ sideways, bad }).toEqual({ sideways: false, bad: [] });
    expect((await layout(hub, '#rooms tr.room[data-trouble]', 72)).bad).toEqual([]);
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
  });

  test('on a phone: each room a card with its status, the trouble in words', async () => {
    const phone = await phoneContext(browser);
    try {
      const page = await openHub(phone, stack.hub, stack.apiKey);
      await hasText(page, '#rooms-summary', '1 of 40 rooms needs attention: Main hall');
      await hasText(page, cell('main-hall', 'status-trouble'), 'Needs attention: 2 publishers at once');
      expect(await layout(page, '#rooms tr.room', 400)).toEqual({ sideways: false, bad: [] });
      expect((await axeViolations(page)).filter(serious)).toEqual([]);
      await screenshot(page, 'rooms-status-phone');
    } finally {
      await phone.close();
    }
  });
});
