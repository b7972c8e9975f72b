import { describe, expect, it } from '@jest/globals';
import { parseFanoutMessage } from '../src/adapters/cluster-fanout.js';
import { compareIds, parseEntry, roomKeys } from '../src/domain/cluster.js';

describe('cluster keys and entries', () => {
  it('keeps every key of a room in one hash slot and apart from other prefixes', () => {
    const keys = roomKeys('relay:', 'captions');
    expect(keys).toMatchObject({
      epoch: 'relay:{captions}:epoch',
      sequence: 'relay:{captions}:seq',
      log: 'relay:{captions}:log',
    });
    expect(keys.delivery('client_0000000001:7')).toBe('relay:{captions}:d:client_0000000001:7');
    expect(roomKeys('other:', 'captions').log).toBe('other:{captions}:log');
  });

  it('reads a stream entry, its time from the id; refuses what is not a caption', () => {
    expect(parseEntry('1700000000123-4', ['s', '12', 'e', 'ep', 'd', 'c:1', 'b', '{"msg":true}'])).toEqual({
      epoch: 'ep',
      sequence: 12,
      at: 1700000000123,
      delivery: 'c:1',
      body: '{"msg":true}',
    });
    expect(parseEntry('1-0', ['s', '0', 'e', 'ep', 'b', '{}'])).toBeUndefined();
    expect(parseEntry('1-0', ['s', '3', 'b', '{}'])).toBeUndefined();
    expect(parseEntry('1-0', ['s', '3', 'e', 'ep'])).toBeUndefined();
  });

  it('orders stream ids by time, then by their counter', () => {
    expect(compareIds('10-0', '9-5')).toBeGreaterThan(0);
    expect(compareIds('10-1', '10-2')).toBeLessThan(0);
    expect(compareIds('10-2', '10-2')).toBe(0);
  });

  it('reads a pub/sub fan-out message; refuses one with a missing or mistyped field', () => {
    const message = ['captions', 'ep', 12, '1700000000123-4', 'c:1', '{"msg":true}'];
    expect(parseFanoutMessage(JSON.stringify(message))).toEqual({
      room: 'captions',
      caption: { epoch: 'ep', sequence: 12, at: 1700000000123, delivery: 'c:1', body: '{"msg":true}' },
    });
    expect(parseFanoutMessage('not json')).toBeUndefined();
    expect(parseFanoutMessage(JSON.stringify(message.slice(0, 5)))).toBeUndefined();
    expect(parseFanoutMessage(JSON.stringify(message.with(3, 42)))).toBeUndefined();
    expect(parseFanoutMessage(JSON.stringify(message.with(2, '12')))).toBeUndefined();
  });
});
