/**
 * The long outages' scenario (long-outage.test.ts) and what is asked of its outcome: a writer
 * publishes a reviewed caption every 2 s through the relay while the outputs service is SIGKILLed,
 * or its PostgreSQL (a private cluster) is stopped, for `OUTAGE_MS`; an observer reading the room
 * records each caption's relay time and sequence; YouTube and Zoom stand-ins and the archive are
 * the destinations. The cases start one after the other, then run their outages side by side.
 */
import { expect } from '@jest/globals';
import { createReader, type RelayPublisher } from '@live-captions/relay-client/node';
import {
  type PostgresCluster,
  type StandIn,
  startPostgresCluster,
  startYouTubeStandIn,
  startZoomStandIn,
  youtubeBlocks,
} from '@live-captions/test-services';
import knexFactory from 'knex';
import { api, kill, publisher, ROOM, type Running, reading, startOutputs, TOKENS, until } from './index.js';
import { addDestination, type RelayStack, startRelayStack } from './stack.js';

export const OUTAGE_MS = Number(process.env.LONG_OUTAGE_MS ?? 300_000);
const EVERY_MS = 2000;
/** OUTPUTS_LIVE_MAX_AGE_MS's default, which the service runs with here. */
const LIVE_MAX_AGE_MS = 60_000;

/** Whose turn it is to start its processes. */
let setups: Promise<void> = Promise.resolve();
/** What the cases started, stopped after all of them, in reverse order. */
const afterwards: (() => Promise<unknown>)[] = [];

/** Stops what the cases started (after all of them). */
export async function stopOutages(): Promise<void> {
  for (const step of afterwards.reverse()) await step().catch(() => undefined);
}

interface Seen {
  at: number;
  sequence: number;
}

export interface Outcome {
  label: string;
  /** Captions published, in order. */
  published: string[];
  /** What the observer read per caption text: the relay's time and sequence. */
  seen: Map<string, Seen>;
  /** Published before the outage (all delivered before it began). */
  before: number;
  /** Published before the outage ended (the rest came after the recovery). */
  afterRecovery: number;
  /** When the outage ended: the service restarted, or PostgreSQL answered again. */
  recoveredAt: number;
  youtube: StandIn;
  zoom: StandIn;
  outputs: Running;
  archive: { key: string | null; text: string; at: number }[];
}

/**
 * Runs one outage: `fault` starts it, `recover` ends it; everything published is archived (or,
 * with a short history, the last caption is) before this resolves.
 */
export async function outage(
  label: string,
  kind: 'outputs' | 'postgres',
  options: { relayLimits?: Record<string, number> } = {},
): Promise<Outcome> {
  // The cases start one after the other (processes compiling at once on a small machine may miss
  // their start-up limits), then run their outages side by side.
  const turn = setups;
  let done = () => {};
  setups = new Promise<void>((resolve) => {
    done = resolve;
  });
  await turn;
  let youtube: StandIn;
  let zoom: StandIn;
  let cluster: PostgresCluster | undefined;
  let stack: RelayStack;
  let outputs: Running;
  try {
    youtube = await startYouTubeStandIn();
    afterwards.push(() => youtube.close());
    zoom = await startZoomStandIn();
    afterwards.push(() => zoom.close());
    if (kind === 'postgres') {
      const started = await startPostgresCluster();
      afterwards.push(() => started.destroy());
      cluster = started;
    }
    stack = await startRelayStack({
      allowed: [youtube.port, zoom.port],
      ...(cluster ? { databaseUrl: cluster.url() } : {}),
      ...(options.relayLimits ? { relayLimits: options.relayLimits } : {}),
    });
    const relay = stack.relay;
    afterwards.push(() => kill(relay));
    // Default settings: only where the relay, the database and the stand-ins are.
    outputs = await startOutputs(stack.env);
    afterwards.push(() => kill(outputs));
    for (const body of [
      { kind: 'youtube', url: youtube.url },
      { kind: 'zoom', url: zoom.url },
      { kind: 'archive' },
    ])
      expect(await addDestination(outputs.port, body)).toBe(201);
    await reading(outputs.port);
  } finally {
    done();
  }
  const db = knexFactory({ client: 'pg', connection: stack.env.DATABASE_URL, pool: { min: 0, max: 2 } });
  const seen = new Map<string, Seen>();
  let observerJoined = false;
  const observer = createReader({
    url: `ws://127.0.0.1:${stack.relay.port}/ws`,
    room: ROOM,
    token: TOKENS.read,
    onCaption: (caption) => {
      if (caption.final !== undefined && caption.at !== undefined)
        seen.set(caption.final, { at: caption.at, sequence: caption.relay.sequence });
    },
    onState: ({ state }) => {
      if (state === 'joined') observerJoined = true;
    },
  });
  let writer: RelayPublisher | undefined;
  let ticker: NodeJS.Timeout | undefined;
  const published: string[] = [];
  const archive = async () =>
    (
      await db('out_archive').where({ track: 'original' }).orderBy('id').select('caption_key', 'text', 'at')
    ).map((row: { caption_key: string | null; text: string; at: unknown }) => ({
      key: row.caption_key,
      text: row.text,
      at: Number(row.at),
    }));
  try {
    await until(`${label}: the observer joined`, () => observerJoined, 60_000);
    writer = publisher(stack.relay.port);
    const publish = () => {
      const text = `${label} caption ${published.length + 1}.`;
      published.push(text);
      writer?.publish({ final: text, id: published.length });
    };
    publish();
    ticker = setInterval(publish, EVERY_MS);
    await new Promise((resolve) => setTimeout(resolve, 5 * EVERY_MS));
    // A pause until these are everywhere, so that the outage starts with nothing in flight.
    clearInterval(ticker);
    const before = published.length;
    const lastBefore = published[before - 1];
    await until(`${label}: first captions archived`, async () =>
      (await archive()).some((row) => row.text === lastBefore),
    );
    await until(`${label}: first captions at both platforms`, () =>
      [youtube, zoom].every((standIn) =>
        standIn.accepted.some((post) => post.body.includes(lastBefore ?? '?')),
      ),
    );

    const started = Date.now();
    if (kind === 'outputs') await kill(outputs);
    else await cluster?.stop();
    ticker = setInterval(publish, EVERY_MS);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS - (Date.now() - started)));
    if (kind === 'outputs') {
      outputs = await startOutputs(stack.env);
      const restarted = outputs;
      afterwards.push(() => kill(restarted));
    } else await cluster?.start();
    const recoveredAt = Date.now();
    const afterRecovery = published.length;
    console.log(
      `${label}: ${kind} down ${recoveredAt - started} ms, ${published.length - before} captions meanwhile`,
    );

    await new Promise((resolve) => setTimeout(resolve, 5 * EVERY_MS));
    clearInterval(ticker);
    ticker = undefined;
    const last = published.at(-1) ?? '?';
    await until(
      `${label}: the last caption archived`,
      async () => (await archive()).at(-1)?.text === last,
      120_000,
    );
    await until(`${label}: the observer read every caption`, () => seen.size === published.length);
    // Every destination has nothing left to send.
    await until(
      `${label}: both platforms caught up`,
      async () => {
        const { destinations } = (await api(outputs.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write))
          .json as { destinations: { behind: number }[] };
        return destinations.every((d) => d.behind === 0);
      },
      60_000,
    );
    console.log(`${label}: caught up ${Date.now() - recoveredAt} ms after the outage ended`);
    return {
      label,
      published,
      seen,
      before,
      afterRecovery,
      recoveredAt,
      youtube,
      zoom,
      outputs,
      archive: await archive(),
    };
  } finally {
    clearInterval(ticker);
    writer?.close();
    observer.close();
    await db.destroy();
    // The outputs process and the stand-ins stay for the assertions (stopped after all).
    await kill(stack.relay);
  }
}

/** Captions a stand-in got, in order, with when it got them (each caption is one line or block). */
function received(
  standIn: StandIn,
  kind: 'youtube' | 'zoom',
): { text: string; acceptedAt: number; at?: number }[] {
  return standIn.accepted.flatMap((post) =>
    kind === 'youtube'
      ? youtubeBlocks(post.body).map((block) => ({
          text: block.lines.join(' '),
          acceptedAt: post.at,
          at: Date.parse(`${block.at}Z`),
        }))
      : post.body.split('\n').map((text) => ({ text, acceptedAt: post.at })),
  );
}

/**
 * What both live platforms must have got: the published captions but a run too old for live (and
 * the `lost` ones, which the service never read).
 */
export async function expectLive(outcome: Outcome, lost: string[] = []): Promise<void> {
  const { label, published, seen, recoveredAt, outputs } = outcome;
  const { destinations } = (await api(outputs.port, 'GET', `/rooms/${ROOM}/destinations`, TOKENS.write))
    .json as {
    destinations: { kind: string; skipped: number; behind: number }[];
  };
  const metrics = (await api(outputs.port, 'GET', '/metrics', '')).text;
  for (const kind of ['youtube', 'zoom'] as const) {
    const standIn = kind === 'youtube' ? outcome.youtube : outcome.zoom;
    const got = received(standIn, kind);
    const texts = got.map((caption) => caption.text);
    expect(standIn.violations).toEqual([]);
    // Once each, in the published order.
    expect(new Set(texts).size).toBe(texts.length);
    const order = texts.map((text) => published.indexOf(text));
    expect(order.every((index, i) => index >= 0 && (i === 0 || index > (order[i - 1] ?? -1)))).toBe(true);
    // What is missing was published during the outage (not before it, not after the recovery)
    // and was older than the live bound when its turn came. (At the bound's edge, while the
    // backlog is still being read, a caption may go out and its successor, a POST later, be past
    // the bound: the missing ones need not be one run.)
    const missing = published.filter((text) => !texts.includes(text));
    const outageCaptions = published.slice(outcome.before, outcome.afterRecovery);
    for (const text of missing) expect(outageCaptions).toContain(text);
    for (const text of missing) expect(seen.get(text)?.at).toBeLessThan(Date.now() - LIVE_MAX_AGE_MS);
    const tooOld = published
      .slice(outcome.before)
      .filter((text) => (seen.get(text)?.at ?? 0) < recoveredAt - LIVE_MAX_AGE_MS);
    expect(tooOld.length).toBeGreaterThan(0);
    for (const text of tooOld) expect(missing).toContain(text);
    const view = destinations.find((d) => d.kind === kind);
    const skipped = missing.length - lost.length;
    for (const text of lost) expect(missing).toContain(text);
    expect(view).toMatchObject({ skipped, behind: 0 });
    expect(metrics).toMatch(
      new RegExp(`^outputs_captions_skipped_total\\{kind="${kind}"\\} ${skipped}$`, 'm'),
    );
    // What was sent went out while it was live; YouTube's blocks carry the caption's own time.
    for (const caption of got) {
      const relayAt = seen.get(caption.text)?.at ?? 0;
      expect(caption.acceptedAt - relayAt).toBeLessThan(LIVE_MAX_AGE_MS + 15_000);
      if (caption.at !== undefined) expect(Math.abs(caption.at - relayAt)).toBeLessThan(1000);
    }
    console.log(`${label}: ${kind} got ${got.length} captions, ${skipped} too old for live`);
  }
  expect(outputs.proc.logLines(/^captions too old for live; archived only$/).length).toBeGreaterThan(0);
}

/** The archive holds exactly `expected` (texts, in order, once), each at the relay's time. */
export function expectArchived(outcome: Outcome, expected: string[]): void {
  const captions = outcome.archive.filter((row) => row.key !== null);
  expect(captions.map((row) => row.text)).toEqual(expected);
  for (const row of captions) expect(row.at).toBe(outcome.seen.get(row.text)?.at);
  // The original times, not the recovery's: the outage's captions are spread over it.
  const during = captions.slice(outcome.before).filter((row) => row.at < outcome.recoveredAt);
  expect(during.length).toBeGreaterThan(0);
}
