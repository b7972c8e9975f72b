import type { DescMessage } from '@bufbuild/protobuf';
import { describe, expect, it } from '@jest/globals';
import type { z } from 'zod/mini';
import * as relayPb from '../src/gen/relay_pb.js';
import {
  relayAckSchema,
  relayBeatSchema,
  relayCaptionSchema,
  relayCursorSchema,
  relayDeliverySchema,
  relayGapSchema,
  relayJoinedSchema,
  relayJoinSchema,
  relayPublishSchema,
  relayRoleSchema,
} from '../src/index.js';

const DELIVERY = { client: 'publisher_00000001', sequence: 1 };

describe('relay frame schemas', () => {
  // The schemas are the frames' one definition; relay.proto describes the same messages for hrpc.
  it.each<[string, z.ZodMiniObject, DescMessage]>([
    ['Cursor', relayCursorSchema, relayPb.CursorSchema],
    ['Delivery', relayDeliverySchema, relayPb.DeliverySchema],
    ['Join', relayJoinSchema, relayPb.JoinSchema],
    ['Joined', relayJoinedSchema, relayPb.JoinedSchema],
    ['Publish', relayPublishSchema, relayPb.PublishSchema],
    ['Ack', relayAckSchema, relayPb.AckSchema],
    ['Caption', relayCaptionSchema, relayPb.CaptionSchema],
    ['Gap', relayGapSchema, relayPb.GapSchema],
    ['Beat', relayBeatSchema, relayPb.BeatSchema],
  ])('%s has the JSON fields of its relay.proto message', (_name, schema, message) => {
    expect(Object.keys(schema.shape).sort()).toEqual(message.fields.map((field) => field.jsonName).sort());
  });

  it('name the roles of relay.proto', () => {
    expect(relayRoleSchema.options).toEqual(relayPb.RoleSchema.values.map((value) => value.name));
  });

  it('take a beat request in a join, its interval in joined, and the beat frame itself', () => {
    const join = { protocol: 2, join: 'r', role: 'read', token: 't' };
    expect(relayJoinSchema.safeParse({ ...join, beat: true }).success).toBe(true);
    expect(relayJoinSchema.safeParse({ ...join, beat: false }).success).toBe(false);
    const joined = {
      joined: 'r',
      role: 'read',
      protocol: 2,
      epoch: 'e',
      next: 1,
      gap: false,
      retentionMs: 1,
    };
    expect(relayJoinedSchema.safeParse(joined).success).toBe(true);
    expect(relayJoinedSchema.safeParse({ ...joined, beatMs: 1500 }).success).toBe(true);
    expect(relayJoinedSchema.safeParse({ ...joined, beatMs: 0 }).success).toBe(false);
    expect(relayBeatSchema.safeParse({ beat: true }).success).toBe(true);
    expect(relayBeatSchema.safeParse({ beat: true, at: 1 }).success).toBe(false);
  });

  it('take a caption with exactly one of final and interm, as publish and as read', () => {
    const caption = { msg: true, id: 1 };
    const relay = { epoch: 'e', sequence: 1 };
    for (const text of [{ final: 'a' }, { interm: 'a' }]) {
      expect(relayPublishSchema.safeParse({ ...caption, ...text, delivery: DELIVERY }).success).toBe(true);
      expect(relayCaptionSchema.safeParse({ ...caption, ...text, relay }).success).toBe(true);
    }
    for (const text of [{}, { final: 'a', interm: 'b' }]) {
      const issues = relayPublishSchema.safeParse({ ...caption, ...text, delivery: DELIVERY }).error?.issues;
      expect(issues?.map((issue) => issue.path)).toEqual([['text']]);
      expect(relayCaptionSchema.safeParse({ ...caption, ...text, relay }).success).toBe(false);
    }
  });

  it('report a text fault beside the faults of other fields', () => {
    const issues = relayPublishSchema.safeParse({ msg: false, id: 1, delivery: DELIVERY }).error?.issues;
    expect(issues?.map((issue) => issue.path)).toEqual([['msg'], ['text']]);
  });
});
