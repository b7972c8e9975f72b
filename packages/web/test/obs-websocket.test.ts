/**
 * The OBS captions client against a real WebSocket server playing obs-websocket 5's documented
 * protocol (helpers/obs-server.ts). The real OBS Studio test is e2e/obs/obs-captions.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test } from '@jest/globals';
import type { RelayCaption } from '@live-captions/protocol';
import type { SocketConstructor } from '@live-captions/relay-client';
import { WebSocket } from 'ws';
import { captionChunks } from '../src/browser/lib/cea608-lines.js';
import { overlayUrl } from '../src/browser/lib/links.js';
import {
  OBS_STATE_TEXT,
  ObsCaptions,
  type ObsCaptionsState,
  obsPort,
} from '../src/browser/lib/obs-captions.js';
import {
  type ObsConnectionState,
  ObsWebSocket,
  obsAuthentication,
} from '../src/browser/lib/obs-websocket.js';
import { readParams } from '../src/browser/lib/params.js';
import { type FakeObs, fakeObs } from './helpers/obs-server.js';

const Socket = WebSocket as unknown as SocketConstructor;
const PASSWORD = 'correct horse battery';
const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function eventually(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function server(): Promise<FakeObs> {
  const obs = await fakeObs(PASSWORD);
  closers.push(() => obs.stop());
  return obs;
}

function client(obs: FakeObs, password = PASSWORD) {
  const states: ObsConnectionState[] = [];
  const events: string[] = [];
  const socket = new ObsWebSocket({
    url: obs.url,
    password,
    WebSocket: Socket,
    backoffMs: [20, 40],
    onState: (state) => states.push(state),
    onEvent: (type) => events.push(type),
  });
  closers.push(() => socket.close());
  return { socket, states, events };
}

const caption = (fields: Partial<RelayCaption>, sequence = 1): RelayCaption =>
  ({ msg: true, id: sequence, relay: { epoch: 'e', sequence }, ...fields }) as RelayCaption;

describe('obs-websocket 5 protocol', () => {
  test('the authentication string is base64(sha256(base64(sha256(password + salt)) + challenge))', async () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('base64');
    // The values of the protocol document's example.
    const [password, challenge, salt] = [
      'supersecretpassword',
      'ztTBnnuqrqaKDzRM3xcVdbYm',
      'PZVbYpvAnZut2SS6JNJytDm9',
    ];
    expect(await obsAuthentication(password, salt, challenge)).toBe(sha(sha(password + salt) + challenge));
  });

  test('Hello, Identify (RPC 1, Outputs events), Identified; requests answered by id; events', async () => {
    const obs = await server();
    const { socket, states, events } = client(obs);
    await eventually(() => socket.state === 'identified');
    expect(states).toEqual(['identified']);
    const identify = obs.received[0]![0]!;
    expect(identify).toMatchObject({ op: 1, d: { rpcVersion: 1, eventSubscriptions: 64 } });
    expect(typeof identify.d.authentication).toBe('string');

    const [status, sent] = await Promise.all([
      socket.request('GetStreamStatus'),
      socket.request('SendStreamCaption', { captionText: 'early' }),
    ]);
    expect(status.requestStatus.code).toBe(100);
    expect(status.responseData).toEqual({ outputActive: false });
    expect(sent.requestStatus).toEqual({ result: false, code: 501 });
    const ids = obs.received[0]!.filter((message) => message.op === 6).map((message) => message.d.requestId);
    expect(new Set(ids).size).toBe(2);

    obs.setStreaming(true);
    await eventually(() => events.length === 1);
    expect(events).toEqual(['StreamStateChanged']);
    expect((await socket.request('SendStreamCaption', { captionText: 'now' })).requestStatus.code).toBe(100);
    expect(obs.captions).toEqual(['now']);
  });

  test('a wrong password (close 4009) is a final state: no retries', async () => {
    const obs = await server();
    const { socket, states } = client(obs, 'wrong');
    await eventually(() => socket.state === 'auth-failed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(obs.received.length).toBe(1);
    expect(states).toEqual(['auth-failed']);
    await expect(socket.request('GetStreamStatus')).rejects.toThrow('not connected');
  });

  test('reconnects with backoff when OBS quits and starts again', async () => {
    const obs = await server();
    const { socket, states } = client(obs);
    await eventually(() => socket.state === 'identified');
    await obs.stop();
    await eventually(() => socket.state === 'waiting');
    await new Promise((resolve) => setTimeout(resolve, 150));
    await obs.start();
    await eventually(() => socket.state === 'identified');
    expect(states[0]).toBe('identified');
    expect(states.at(-1)).toBe('identified');
    expect(states).toContain('waiting');
    expect(obs.received.length).toBeGreaterThanOrEqual(2);
  });
});

describe('OBS native captions from the overlay', () => {
  function captions(
    obs: FakeObs,
    overrides: { showtimeMs?: number; password?: string; track?: string } = {},
  ) {
    const states: ObsCaptionsState[] = [];
    const holds: [string, number][] = [];
    const sent: string[] = [];
    const forwarder = new ObsCaptions({
      port: obs.port,
      password: overrides.password ?? PASSWORD,
      showtimeMs: overrides.showtimeMs ?? 0,
      ...(overrides.track ? { track: overrides.track } : {}),
      WebSocket: Socket,
      backoffMs: [20],
      holdMs: (chunk, waiting) => {
        holds.push([chunk, waiting]);
        return 100;
      },
      onState: (state) => states.push(state),
      onSent: (text) => sent.push(text),
    });
    closers.push(() => forwarder.close());
    return { forwarder, states, holds, sent };
  }

  test('a stream that starts while its status is asked is live, whatever the older answer says', async () => {
    const obs = await server();
    obs.beforeStatusAnswer = () => {
      obs.beforeStatusAnswer = undefined;
      obs.setStreaming(true);
    };
    const { forwarder, states } = captions(obs);
    await eventually(() => obs.received[0]?.some((message) => message.op === 6) === true);
    await eventually(() => states.length >= 1);
    // The stale "not active" answer arrives after the event and must not undo it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(forwarder.state).toBe('live');
    expect(states).toEqual(['live']);
  });

  test('not streaming: a visible state, nothing sent; streaming: finals as paced 608 captions', async () => {
    const obs = await server();
    const { forwarder, states, holds, sent } = captions(obs);
    await eventually(() => forwarder.state === 'not-streaming');
    expect(OBS_STATE_TEXT['not-streaming']).toBe('CC: OBS is not streaming');
    forwarder.shown(caption({ final: 'Lost while not streaming.' }));

    obs.setStreaming(true);
    await eventually(() => forwarder.state === 'live');
    expect(OBS_STATE_TEXT.live).toBe('');
    const long =
      'Welcome everyone to the annual meeting of the association, where we will first review the budget.';
    forwarder.shown(caption({ interm: 'Welcome every' }, 2));
    forwarder.shown(caption({ final: long }, 3));
    forwarder.shown(caption({ final: 'Bienvenue à tous.', label: 'translation' }, 4));
    forwarder.shown(caption({ final: 'Second caption.' }, 5));
    const expected = [...captionChunks(long), 'Second caption.'];
    expect(expected.length).toBe(3);
    // The first is sent at once; the next waits for its hold.
    await eventually(() => obs.captions.length === 1);
    expect(obs.captions).toEqual([expected[0]]);
    // OBS has the third caption before the overlay has read OBS's answer and chosen its hold.
    await eventually(() => obs.captions.length === 3 && holds.length === 3);
    expect(obs.captions).toEqual(expected);
    expect(holds.map(([chunk]) => chunk)).toEqual(expected);
    expect(holds.map(([, waiting]) => waiting)).toEqual([2, 1, 0]);

    forwarder.shown(caption({ c: true }, 6));
    await eventually(() => obs.captions.length === 4);
    expect(obs.captions[3]).toBe('');
    await eventually(() => sent.length === 4);
    expect(sent).toEqual(obs.captions);
    expect(states).toEqual(['not-streaming', 'live']);
  });

  test("with the overlay's ln, that language's finals are sent, not the original nor another language", async () => {
    const obs = await server();
    obs.setStreaming(true);
    const { forwarder } = captions(obs, { track: 'es' });
    await eventually(() => forwarder.state === 'live');
    forwarder.shown(caption({ final: 'Good morning.' }, 2));
    forwarder.shown(caption({ final: 'Bon dia.', label: 'translation', ln: 'ca' }, 3));
    forwarder.shown(caption({ interm: 'Buenos', label: 'translation', ln: 'es' } as never, 4));
    forwarder.shown(caption({ final: 'Buenos días.', label: 'translation', ln: 'es' }, 5));
    forwarder.shown(caption({ final: 'Hello.', label: 'translation', ln: 'en' }, 6));
    forwarder.shown(caption({ final: '¿Qué tal?', label: 'translation', ln: 'ES' }, 7));
    await eventually(() => obs.captions.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(obs.captions).toEqual(['Buenos días.', '¿Qué tal?']);
  });

  test('the stream stopping (501) shows; idle time clears the 608 screen', async () => {
    const obs = await server();
    obs.setStreaming(true);
    const { forwarder, states } = captions(obs, { showtimeMs: 300 });
    await eventually(() => forwarder.state === 'live');
    forwarder.shown(caption({ final: 'Shown, then cleared.' }));
    await eventually(() => obs.captions.length === 2);
    expect(obs.captions).toEqual(['Shown, then cleared.', '']);

    obs.streaming = false; // stopped without an event reaching us: the 501 tells
    forwarder.shown(caption({ final: 'Refused.' }, 2));
    await eventually(() => forwarder.state === 'not-streaming');
    expect(obs.captions.length).toBe(2);
    expect(states).toEqual(['live', 'not-streaming']);
  });

  test('wrong password and OBS unreachable are states of their own', async () => {
    const obs = await server();
    const wrong = captions(obs, { password: 'nope' });
    await eventually(() => wrong.forwarder.state === 'auth-failed');
    expect(OBS_STATE_TEXT['auth-failed']).toMatch(/password/);
    await obs.stop();
    const away = captions(obs);
    await eventually(() => away.forwarder.state === 'unreachable');
    // Between attempts (20 ms apart) it stays unreachable: no flicker back to connecting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(away.states).toEqual(['unreachable']);
    await obs.start();
    await eventually(() => away.forwarder.state === 'not-streaming');
  });

  test("the overlay link's obs option: port and password in the fragment, the password stripped from the address", () => {
    const link = overlayUrl('https://ui.example.org/', 'wss://relay.example.org/ws', 'out', 'R'.repeat(32), {
      maxlines: 2,
      obsPort: 4455,
      obsPassword: 'p&ss word',
    });
    expect(new URL(link).search).toBe('?maxlines=2');
    expect(new URL(link).hash).toMatch(/&obs=4455&obspw=p%26ss\+word$/);
    expect(
      overlayUrl('https://ui.example.org/', 'wss://r.example.org/ws', 'out', 'R', { obsPassword: 'x' }),
    ).not.toMatch(/obs/);
    const params = readParams(link);
    expect(params.get('obs')).toBe('4455');
    expect(params.get('obspw')).toBe('p&ss word');
    expect(params.cleanUrl).not.toContain('obspw');
    expect(params.cleanUrl).toContain('obs=4455');
    expect(obsPort('4455')).toBe(4455);
    for (const bad of [undefined, '', '0', '65536', '44a', '-1', '4455.5'])
      expect(obsPort(bad)).toBeUndefined();
  });
});
