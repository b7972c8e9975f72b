/**
 * The cluster's Lua scripts (each runs atomically in Redis) and the commands ioredis defines from
 * them. Each script's comment lists its KEYS, ARGV and reply.
 */
// A room whose epoch key is gone (first use, or Redis lost its data) starts a new epoch with an
// empty history and sequence, so that no reader mixes positions of two epochs.
const OPEN_EPOCH = `
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[1], epoch)
  redis.call('DEL', KEYS[2], KEYS[3])
end
`;

/**
 * Publish: KEYS epoch, sequence, log, delivery; ARGV candidate epoch, body, stream length,
 * replayMs, channel ('' without pub/sub), room, delivery key. One atomic step: the duplicate check,
 * the room sequence, the stream entry, trimming by count and age, the delivery identity with its
 * TTL, and for pub/sub the fan-out message.
 */
export const PUBLISH = `${OPEN_EPOCH}
local hash = redis.sha1hex(ARGV[2])
local prior = redis.call('GET', KEYS[4])
if prior then
  local sep = string.find(prior, ':', 1, true)
  if string.sub(prior, sep + 1) == hash then
    return {'duplicate', epoch, tonumber(string.sub(prior, 1, sep - 1))}
  end
  return {'conflict', epoch, 0}
end
local sequence = redis.call('INCR', KEYS[2])
local id = redis.call('XADD', KEYS[3], 'MAXLEN', ARGV[3], '*', 's', sequence, 'e', epoch, 'd', ARGV[7], 'b', ARGV[2])
local ms = tonumber(string.match(id, '^(%d+)'))
redis.call('XTRIM', KEYS[3], 'MINID', tostring(ms - tonumber(ARGV[4])))
redis.call('SET', KEYS[4], sequence .. ':' .. hash, 'PX', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('PUBLISH', ARGV[5], cjson.encode({ARGV[6], epoch, sequence, id, ARGV[7], ARGV[2]}))
end
return {'new', epoch, sequence}
`;

/** Snapshot: KEYS epoch, sequence, log; ARGV candidate epoch, replayMs. Epoch, last sequence, retained entries. */
export const SNAPSHOT = `${OPEN_EPOCH}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('XTRIM', KEYS[3], 'MINID', tostring(now - tonumber(ARGV[2])))
return {epoch, redis.call('GET', KEYS[2]) or '0', redis.call('XRANGE', KEYS[3], '-', '+')}
`;

export type StreamEntry = [id: string, fields: string[]];

export interface ClusterCommands {
  relayPublish(...args: string[]): Promise<[string, string, number]>;
  relaySnapshot(...args: string[]): Promise<[string, string, StreamEntry[]]>;
}
