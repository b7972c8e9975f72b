/**
 * The rooms board's status at a glance in chromium, on the caption rooms stack (rooms-stack.ts:
 * relay with its rooms store, UI, speech gateway as the capture host, outputs and stream sources
 * services) with the YouTube stand-in as the platform: two real relay writers in one room's
 * source room make its row say so and stand out (words and colour), with the summary line naming
 * it; a room with a capture page shows its captions of the last minute and its audience readers;
 * a pulled stream nobody answers (failed) and a YouTube destination the platform refuses
 * (failing) each put their room in trouble, with the reason's first words; the workers' line
 * comes from the gateway's `/health`; axe finds nothing serious or critical with rooms in
 * trouble; 40 rooms with their status on 1366x768 and on a phone.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import {
  createPublisher,
  createReader,
  type RelayPublisher,
  type RelayReader,
} from '@live-captions/relay-client/node';
import { type StandIn, startYouTubeStandIn } from '@live-captions/test-services';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, until } from '../deploy/helpers/processes.js';
import { axeViolations, serious } from './axe-audit.js';
import { launchBrowser, phoneContext, screenshot, watchErrors } from './browser.js';
import { layout, openHub, row, waitForText } from './rooms-pages.js';
import { type RoomsStack, startRoomsStack } from './rooms-stack.js';

jest.setTimeout(240_000);

let stack: RoomsStack;
let youtube: StandIn;
let browser: Browser;
let desk: BrowserContext;
let hub: Page;
let errors: string[];
const closers: (RelayPublisher | RelayReader)[] = [];

beforeAll(async () => {
  youtube = await startYouTubeStandIn();
  stack = await startRoomsStack({ services: { outputsHosts: `127.0.0.1:${youtube.port}` } });
  browser = await launchBrowser('/dev/null');
  desk = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  for (const name of ['Main hall', 'Room B']) await stack.create(name);
}, 180_000);

afterAll(async () => {
  for (const client of closers) client.close();
  await browser?.close();
  await stack?.stop();
  await youtube?.close();
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

/** Waits (90 s: a source fails after three attempts) until room `id`'s trouble line matches. */
async function troubleOf(id: string, pattern: RegExp): Promise<void> {
  try {
    await hub.waitForFunction(
      ([selector, source]) => new RegExp(source!).test(document.querySelector(selector!)?.textContent ?? ''),
      [cell(id, 'status-trouble'), pattern.source],
      { timeout: 90_000 },
    );
  } catch (error) {
    const now = await row(hub, id).textContent();
    throw new Error(`${id}'s row never matched ${pattern} (it reads "${now}")\n${stack.logs()}`, {
      cause: error,
    });
  }
}

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
    await hasText(hub, cell('room-b', 'status-outputs'), 'No destinations');
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
  });
});

/** A call to the stream sources service with the service token. */
function sourcesCall(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(new URL(path, stack.sourcesUrl), {
    ...init,
    headers: { Authorization: `Bearer ${stack.apiKey}`, 'Content-Type': 'application/json' },
  });
}

describe('stream sources and destinations', () => {
  test('a failed pulled stream and a refused YouTube destination: each room in trouble, with why', async () => {
    const lectern = await stack.create('Lectern');
    const workshop = await stack.create('Workshop');
    // A stream nobody serves: reconnecting, then failed (the rooms API's room is known within 2 s).
    const dead = `rtmp://127.0.0.1:${await freePort()}/live/program`;
    let sourceId = '';
    await until(
      'the sources service to take the new room',
      async () => {
        const response = await sourcesCall('sources', {
          method: 'POST',
          body: JSON.stringify({
            room: lectern.id,
            name: 'Dead encoder',
            input: { kind: 'pull', url: dead },
          }),
        });
        if (response.ok) sourceId = ((await response.json()) as { source: { id: string } }).source.id;
        return response.ok;
      },
      15_000,
    );
    // YouTube refuses the stream's parameters (403): failing, with the platform's status.
    const refused = new URL(youtube.url);
    refused.searchParams.set('cid', 'not-this-stream');
    const destinations = new URL(`rooms/${workshop.outputRoom}/destinations`, stack.outputsUrl);
    const writer = {
      Authorization: `Bearer ${workshop.tokens.outputWrite}`,
      'Content-Type': 'application/json',
    };
    let destinationId = '';
    await until(
      'the outputs service to take the new room',
      async () => {
        const response = await fetch(destinations, {
          method: 'POST',
          headers: writer,
          body: JSON.stringify({ kind: 'youtube', url: refused.href }),
        });
        if (response.ok)
          destinationId = ((await response.json()) as { destination: { id: string } }).destination.id;
        return response.ok;
      },
      15_000,
    );
    const output = createPublisher({
      url: stack.ui.relayUrl,
      room: workshop.outputRoom,
      token: workshop.tokens.outputWrite,
    });
    closers.push(output);
    // Captions keep coming, as in a session: the service's reader of the new room may join after the first.
    let n = 0;
    const talk = setInterval(
      () => output.publish({ final: `For the stream ${++n}.`, id: `w-${n}`, ln: 'en' }),
      1000,
    );

    await troubleOf('workshop', /^Needs attention: YouTube Live failing: .*403/);
    await troubleOf('lectern', /^Needs attention: Dead encoder failed: \S/);
    clearInterval(talk);
    await hasText(hub, '#rooms-summary', '2 of 5 rooms need attention: Lectern, Workshop');
    expect(await hub.locator(cell('lectern', 'status-source')).textContent()).toBe('Dead encoder: failed');
    expect(await hub.locator(cell('workshop', 'status-outputs')).textContent()).toBe('YouTube Live: failing');
    await screenshot(hub, 'rooms-status-failing');
    expect((await axeViolations(hub)).filter(serious)).toEqual([]);

    // Fixed (here: removed), the rooms are fine again.
    expect((await sourcesCall(`sources/${sourceId}`, { method: 'DELETE' })).status).toBe(204);
    const removed = await fetch(new URL(destinationId, `${destinations.href}/`), {
      method: 'DELETE',
      headers: writer,
    });
    expect(removed.status).toBe(204);
    await hasText(hub, '#rooms-summary', 'All 5 rooms are fine');
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
