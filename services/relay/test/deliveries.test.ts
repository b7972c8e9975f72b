/**
 * Deliveries for the readers that ask (`join.deliveries`): each caption with its publish's
 * delivery identity, live and replayed, so that the outputs service can tell lost captions from
 * a relay restart that lost nothing; everyone else keeps the one shared frame.
 */
import { describe, expect, it } from '@jest/globals';
import { type RelayCaption, type RelayJoined, relayCaptionSchema } from '@live-captions/protocol';
import { captionFrame, frameWithDelivery } from '../src/domain/frames.js';
import { Client, publishAll, relayPerTest, SOURCE, TOKENS } from './helpers.js';

const start = relayPerTest();

const CLIENT = 'publisher_00000001';
const texts = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`);

describe('deliveries', () => {
  it('gives a reader that asks each caption with its publish’s delivery, live and replayed; others get the shared frame', async () => {
    const { url } = await start();
    const plain = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const asking = await Client.open(url);
    asking.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, deliveries: true });
    await asking.count(1);
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    await publishAll(writer, texts(2), CLIENT);
    await plain.count(3);
    const live = (await asking.count(3)).slice(1) as RelayCaption[];
    expect(live.map((c) => c.delivery)).toEqual([
      { client: CLIENT, sequence: 1 },
      { client: CLIENT, sequence: 2 },
    ]);
    expect((plain.frames.slice(1) as RelayCaption[]).every((c) => !('delivery' in c))).toBe(true);
    const epoch = (writer.frames[0] as RelayJoined).epoch;
    const replay = await Client.open(url);
    replay.send({
      protocol: 2,
      join: SOURCE,
      role: 'read',
      token: TOKENS.sourceRead,
      cursor: { epoch, sequence: 1 },
      deliveries: true,
    });
    const replayed = (await replay.count(2))[1] as RelayCaption;
    expect(replayed).toMatchObject({ final: 'line 2', delivery: { client: CLIENT, sequence: 2 } });
    const wrong = await Client.open(url);
    wrong.send({ protocol: 2, join: SOURCE, role: 'read', token: TOKENS.sourceRead, deliveries: false });
    expect(await wrong.closed).toEqual({ code: 1008, reason: 'deliveries must be true' });
    for (const c of [plain, asking, writer, replay]) c.close();
  });
});

describe('frameWithDelivery', () => {
  it('appends the publish’s delivery for a reader that asked, and leaves a malformed one out', () => {
    const frame = Buffer.from(captionFrame('{"msg":true,"final":"a","id":1}', 'e', 3, 5));
    const client = 'publisher_00000001';
    const withDelivery = JSON.parse(frameWithDelivery(frame, `${client}:12`).toString());
    expect(withDelivery).toEqual({
      msg: true,
      final: 'a',
      id: 1,
      relay: { epoch: 'e', sequence: 3 },
      at: 5,
      delivery: { client, sequence: 12 },
    });
    expect(relayCaptionSchema.safeParse(withDelivery).success).toBe(true);
    // Written into a cluster's history by something else (an older relay, by hand).
    for (const odd of ['old:1', '', `${client}:0`, `${client}:x`, 'x'.repeat(200)])
      expect(frameWithDelivery(frame, odd)).toBe(frame);
  });
});
