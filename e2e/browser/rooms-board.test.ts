/**
 * The links hub's caption rooms board in chromium, against a real relay with its rooms store and
 * the UI service (rooms-stack.ts): the operator creates three rooms, renames one, gives one new
 * tokens and removes one, the relay's API confirming each; a room's links carry only their
 * pages' tokens and work (the editor joins, the overlay shows a caption); a room's Manage menu
 * holds Rename, New tokens and Remove; axe finds nothing serious; 40 rooms (all by hand: the site
 * has no calendar) read on 1366x768 without sideways scrolling, and the board and the public page
 * work on a phone. The public page's own suite: now-page.test.ts.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { createPublisher } from '@live-captions/relay-client/node';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, phoneContext, screenshot, watchErrors } from './browser.js';
import { processLogs } from './relay-ui.js';
import { fragmentOf, layout, openHub, row, waitForText } from './rooms-pages.js';
import { type RoomsStack, startRoomsStack } from './rooms-stack.js';

jest.setTimeout(120_000);

let stack: RoomsStack;
let browser: Browser;
let desk: BrowserContext;
let hub: Page;
let errors: string[];

beforeAll(async () => {
  stack = await startRoomsStack();
  browser = await launchBrowser('/dev/null');
  desk = await browser.newContext({ viewport: { width: 1366, height: 768 } });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const byId = async (id: string) => (await stack.rooms()).find((room) => room.id === id);

/** Waits until the element of `selector` reads exactly `text`; the services' logs when it never does. */
const hasText = (page: Page, selector: string, text: string) =>
  waitForText(page, selector, text, () => processLogs(stack.ui.processes()));

const openBoard = (context: BrowserContext, token = stack.apiKey) => openHub(context, stack.hub, token);
/** Opens a row's Manage menu (Rename, New tokens, Remove; a file room's says where it is changed). */
const manage = (page: Page, name: string) => page.getByRole('button', { name: `Manage ${name}` }).click();
const FILE_ROOM = 'Defined in relay.private.json: renamed, given new tokens or removed there.';

async function createRoom(page: Page, name: string): Promise<void> {
  await page.locator('#room-name').fill(name);
  await page.getByRole('button', { name: 'Create room' }).click();
  await hasText(page, '#rooms-status', `Created ${name}`);
}

describe('the rooms board', () => {
  test("a wrong token shows the relay's own message", async () => {
    const page = await openBoard(desk, 'not-the-token-0123456789abcdef');
    await page.waitForFunction(
      () => document.querySelector('#rooms-status')?.getAttribute('data-tone') === 'error',
    );
    expect(await page.locator('#rooms-status').textContent()).toBe('Missing or wrong service access token');
    await page.close();
  });

  test('create three rooms, rename one, new tokens for one, remove one: the relay agrees', async () => {
    hub = await openBoard(desk);
    errors = watchErrors(hub);
    // The relay file's pair is a room too, changed only in the file.
    await row(hub, 'plenary').waitFor();
    await manage(hub, 'plenary');
    await hasText(hub, '#rooms tr[data-id="plenary"] .manage-menu', FILE_ROOM);
    await hub.keyboard.press('Escape');
    for (const name of ['Main hall', 'Room B', 'Workshop 3']) await createRoom(hub, name);
    expect((await stack.rooms()).map((room) => [room.id, room.name, room.kind])).toEqual([
      ['plenary', 'plenary', 'file'],
      ['main-hall', 'Main hall', 'api'],
      ['room-b', 'Room B', 'api'],
      ['workshop-3', 'Workshop 3', 'api'],
    ]);

    await manage(hub, 'Room B');
    await hub.getByRole('button', { name: 'Rename Room B' }).click();
    const field = hub.getByRole('textbox', { name: 'New name of Room B' });
    expect(await field.evaluate((node) => node === document.activeElement)).toBe(true);
    await field.fill('Room B (Janson)');
    await field.press('Enter');
    await hasText(hub, '#rooms tr[data-id="room-b"] .room-name', 'Room B (Janson)');
    expect((await byId('room-b'))?.name).toBe('Room B (Janson)');

    // New tokens only after a confirmation: dismissed, nothing changes; accepted, all four do.
    const before = (await byId('main-hall'))!.tokens;
    hub.once('dialog', (dialog) => void dialog.dismiss());
    await manage(hub, 'Main hall');
    await hub.getByRole('button', { name: 'New tokens for Main hall' }).click();
    expect((await byId('main-hall'))!.tokens).toEqual(before);
    hub.once('dialog', (dialog) => void dialog.accept());
    await manage(hub, 'Main hall');
    await hub.getByRole('button', { name: 'New tokens for Main hall' }).click();
    await hasText(hub, '#rooms-status', 'New tokens for Main hall: share its new links');
    const after = (await byId('main-hall'))!.tokens;
    for (const key of Object.keys(before) as (keyof typeof before)[])
      expect(after[key]).not.toBe(before[key]);
    expect(await row(hub, 'main-hall').locator('a[data-link="overlay"]').getAttribute('href')).toContain(
      after.outputRead,
    );

    hub.once('dialog', (dialog) => void dialog.accept());
    await manage(hub, 'Workshop 3');
    await hub.getByRole('button', { name: 'Remove Workshop 3' }).click();
    await row(hub, 'workshop-3').waitFor({ state: 'detached' });
    expect(await byId('workshop-3')).toBeUndefined();
    expect(errors).toEqual([]);
  });

  test("a room's links carry only their pages' tokens, and work", async () => {
    const room = (await byId('main-hall'))!;
    const { sourceRead, sourceWrite, outputRead, outputWrite } = room.tokens;
    const href = (link: string) => row(hub, room.id).locator(`a[data-link="${link}"]`).getAttribute('href');
    const relayUrl = stack.ui.relayUrl;
    const capture = await href('capture');
    expect(capture?.startsWith(`${stack.captureUrl}#`)).toBe(true);
    expect(fragmentOf(capture)).toEqual({ relayUrl, room: 'main-hall', relayWriteToken: sourceWrite });
    expect(fragmentOf(await href('editor'))).toMatchObject({
      relayUrl,
      sourceRoom: 'main-hall',
      sourceReadToken: sourceRead,
      outputRoom: 'main-hall-output',
      outputWriteToken: outputWrite,
      outputReadToken: outputRead,
    });
    expect(await href('editor')).not.toContain(sourceWrite);
    for (const link of ['overlay', 'audience'])
      expect(fragmentOf(await href(link))).toEqual({
        relayUrl,
        room: 'main-hall-output',
        relayReadToken: outputRead,
      });

    // One click opens each page in a new tab; the editor reads the source room, the overlay the output.
    const [editor] = await Promise.all([
      desk.waitForEvent('page'),
      row(hub, room.id).getByRole('link', { name: 'Editor of Main hall' }).click(),
    ]);
    await editor.waitForFunction(
      () => document.querySelector('#source-status')?.getAttribute('data-link') === 'joined',
    );
    expect(await editor.locator('#source-token').inputValue()).toBe(sourceRead);
    expect(await editor.locator('#output-token').inputValue()).toBe(outputWrite);
    expect(editor.url()).not.toContain('Token');
    const [overlay] = await Promise.all([
      desk.waitForEvent('page'),
      row(hub, room.id).getByRole('link', { name: 'Overlay of Main hall' }).click(),
    ]);
    const source = createPublisher({ url: relayUrl, room: 'main-hall', token: sourceWrite });
    const output = createPublisher({ url: relayUrl, room: 'main-hall-output', token: outputWrite });
    try {
      // Live pages show what arrives once they have joined.
      await overlay.waitForFunction(() => document.body.dataset.relay === 'joined');
      source.publish({ final: 'Heard in the main hall.', id: 'm-1', ln: 'en' });
      output.publish({ final: 'Shown in the main hall.', id: 'o-1', ln: 'en' });
      await overlay.locator('#captions').getByText('Shown in the main hall.').waitFor({ timeout: 20_000 });
      await editor.waitForFunction(
        () =>
          document.body.textContent?.includes('Heard in the main hall.') ||
          (document.querySelector<HTMLTextAreaElement>('#draft')?.value ?? '').includes(
            'Heard in the main hall.',
          ),
        undefined,
        { timeout: 20_000 },
      );
    } finally {
      source.close();
      output.close();
      await Promise.all([editor.close(), overlay.close()]);
    }
  });

  test('the QR code of a room and axe on the board: nothing serious', async () => {
    await hub.getByRole('button', { name: 'QR code of the audience link of Main hall' }).click();
    const room = (await byId('main-hall'))!;
    expect(fragmentOf(await hub.locator('#room-qr-link').inputValue()).relayReadToken).toBe(
      room.tokens.outputRead,
    );
    expect(await hub.locator('#room-qr-short').inputValue()).toBe(`${stack.hub}now.html?room=main-hall`);
    expect(await hub.locator('#room-qr').isVisible()).toBe(true);
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
    await hub.getByRole('button', { name: 'Close' }).click();
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
  });
});

describe('a conference of 40 rooms', () => {
  beforeAll(async () => {
    const have = (await stack.rooms()).length;
    for (let n = have + 1; n <= 40; n += 1) await stack.create(`Room ${n} (Building K, level ${n % 4})`);
  });

  test('on 1366x768: every room on one line, no sideways scrolling', async () => {
    await row(hub, 'room-40-building-k-level-0').waitFor({ timeout: 15_000 });
    expect(await hub.locator('#rooms tr.room').count()).toBe(40);
    // A site without a calendar: every room by hand, the Schedule column there all the same.
    expect(new Set(await hub.locator('#rooms .schedule-line').allTextContents())).toEqual(
      new Set(['By hand']),
    );
    const { sideways, bad } = await layout(hub, '#rooms tr.room', 48);
    expect({ sideways, bad }).toEqual({ sideways: false, bad: [] });
    expect(
      await hub
        .locator('#rooms tr.room .room-name')
        .first()
        .evaluate((node) => Number.parseFloat(getComputedStyle(node).fontSize)),
    ).toBeGreaterThanOrEqual(14);
    await row(hub, 'room-40-building-k-level-0').scrollIntoViewIfNeeded();
    expect(await row(hub, 'room-40-building-k-level-0').isVisible()).toBe(true);
    await screenshot(hub, 'rooms-board-40');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);
  });

  test('on a phone: each room a card that fits, links large enough to tap, rooms created', async () => {
    const phone = await phoneContext(browser);
    try {
      const page = await openBoard(phone);
      await row(page, 'room-40-building-k-level-0').waitFor();
      const { sideways, bad } = await layout(page, '#rooms tr.room', 400);
      expect({ sideways, bad }).toEqual({ sideways: false, bad: [] });
      const tap = await row(page, 'main-hall')
        .getByRole('link', { name: 'Audience page of Main hall' })
        .boundingBox();
      expect(tap?.height).toBeGreaterThanOrEqual(44);
      await createRoom(page, 'Phone booth');
      await row(page, 'phone-booth').waitFor();
      expect((await axeViolations(page)).filter(serious)).toEqual([]);
      await screenshot(page, 'rooms-board-phone');
      const now = await phone.newPage();
      await now.goto(`${stack.hub}now.html`);
      await now.locator('#now-rooms li[data-id="phone-booth"]').waitFor();
      expect(await layout(now, '#now-rooms li', 400)).toEqual({ sideways: false, bad: [] });
      expect((await axeViolations(now)).filter(serious)).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});
