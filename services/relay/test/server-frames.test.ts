import { describe, expect, it } from '@jest/globals';
import {
  type RelayJoined,
  relayAckSchema,
  relayCaptionSchema,
  relayJoinedSchema,
} from '@live-captions/protocol';
import { Client, relayPerTest, SOURCE, TOKENS } from './helpers.js';

const start = relayPerTest();

describe('frames the relay sends', () => {
  it('are the shared schemas: joined (with and without a gap), ack, caption', async () => {
    const { url } = await start();
    const reader = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead);
    const writer = await Client.join(url, SOURCE, 'write', TOKENS.sourceWrite);
    const delivery = { client: 'publisher_00000001', sequence: 1 };
    writer.send({ msg: true, final: 'Hello', id: 7, label: 'Anna', ln: 'en', c: true, delivery });
    writer.send({ msg: true, interm: 'Wor', id: 'b-2', delivery: { ...delivery, sequence: 2 } });
    const [joined, ...acks] = await writer.count(3);
    const [, ...captions] = await reader.count(3);
    const epoch = (joined as RelayJoined).epoch;
    const resumed = await Client.join(url, SOURCE, 'read', TOKENS.sourceRead, {
      epoch: `not-${epoch}`,
      sequence: 1,
    });

    const problems = (schema: { safeParse(value: unknown): { error?: unknown } }, frames: unknown[]) =>
      frames.map((frame) => schema.safeParse(frame).error);
    expect(problems(relayJoinedSchema, [joined, reader.frames[0], resumed.frames[0]])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect((resumed.frames[0] as RelayJoined).gap).toBe('relay-restarted');
    expect(problems(relayAckSchema, acks)).toEqual([undefined, undefined]);
    expect(problems(relayCaptionSchema, captions)).toEqual([undefined, undefined]);
    for (const client of [reader, writer, resumed]) client.close();
  });
});
