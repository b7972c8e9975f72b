/**
 * The cluster's Lua scripts (each runs atomically in Redis) and the commands ioredis defines from
 * them. Each script's comment lists its KEYS, ARGV and reply.
 */
// A room whose epoch key is gone (first use, or Redis lost its data) starts a new epoch with an
// empty history, sequence and byte count, so that no reader mixes positions of two epochs.
// KEYS[1..4]: epoch, sequence, log, bytes.
const OPEN_EPOCH = `
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[1], epoch)
  redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
end
`;

// The room's retention in Redis, as each node keeps it in memory: drops the oldest entries of
// the stream (KEYS[3]) while one is older than max_age before now (ms), or the stream holds more
// than max_count entries or more than max_bytes bytes of caption bodies (their sum kept in
// KEYS[4], since a stream does not know its entries' sizes). Reads the oldest entries a few at a
// time: a publish usually drops none or one.
const TRIM = `
local function trim(now, max_age, max_count, max_bytes)
  local bytes = tonumber(redis.call('GET', KEYS[4]) or '0')
  local count = redis.call('XLEN', KEYS[3])
  local cutoff = now - max_age
  local keep = nil
  local dropped = false
  local from = '-'
  while count > 0 and not keep do
    local batch = redis.call('XRANGE', KEYS[3], from, '+', 'COUNT', 16)
    if #batch == 0 then break end
    for _, entry in ipairs(batch) do
      local ms = tonumber(string.match(entry[1], '^(%d+)'))
      if ms > cutoff and count <= max_count and bytes <= max_bytes then
        keep = entry[1]
        break
      end
      local fields = entry[2]
      for i = 1, #fields, 2 do
        if fields[i] == 'b' then bytes = bytes - #fields[i + 1] end
      end
      count = count - 1
      dropped = true
    end
    from = '(' .. batch[#batch][1]
  end
  if dropped then
    if keep then
      redis.call('XTRIM', KEYS[3], 'MINID', keep)
    else
      redis.call('XTRIM', KEYS[3], 'MAXLEN', 0)
    end
    if bytes < 0 or not keep then bytes = 0 end
    redis.call('SET', KEYS[4], bytes)
  end
end
`;

/**
 * Publish: KEYS epoch, sequence, log, bytes, delivery; ARGV candidate epoch, body, max count,
 * replayMs, channel ('' without pub/sub), room, delivery key, max bytes. One atomic step: the
 * duplicate check, the room sequence, the stream entry, trimming by age, count and bytes, the
 * delivery identity with its TTL, and for pub/sub the fan-out message.
 */
export const PUBLISH = `${OPEN_EPOCH}${TRIM}
local hash = redis.sha1hex(ARGV[2])
local prior = redis.call('GET', KEYS[5])
if prior then
  local sep = string.find(prior, ':', 1, true)
  if string.sub(prior, sep + 1) == hash then
    return {'duplicate', epoch, tonumber(string.sub(prior, 1, sep - 1))}
  end
  return {'conflict', epoch, 0}
end
local sequence = redis.call('INCR', KEYS[2])
local id = redis.call('XADD', KEYS[3], '*', 's', sequence, 'e', epoch, 'd', ARGV[7], 'b', ARGV[2])
redis.call('INCRBY', KEYS[4], #ARGV[2])
trim(tonumber(string.match(id, '^(%d+)')), tonumber(ARGV[4]), tonumber(ARGV[3]), tonumber(ARGV[8]))
redis.call('SET', KEYS[5], sequence .. ':' .. hash, 'PX', ARGV[4])
if ARGV[5] ~= '' then
  redis.call('PUBLISH', ARGV[5], cjson.encode({ARGV[6], epoch, sequence, id, ARGV[7], ARGV[2]}))
end
return {'new', epoch, sequence}
`;

/**
 * Snapshot: KEYS epoch, sequence, log, bytes; ARGV candidate epoch, replayMs, max count, max
 * bytes. Epoch, last sequence, retained entries (trimmed first).
 */
export const SNAPSHOT = `${OPEN_EPOCH}${TRIM}
local t = redis.call('TIME')
trim(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
return {epoch, redis.call('GET', KEYS[2]) or '0', redis.call('XRANGE', KEYS[3], '-', '+')}
`;

export type StreamEntry = [id: string, fields: string[]];

export interface ClusterCommands {
  relayPublish(...args: string[]): Promise<[string, string, number]>;
  relaySnapshot(...args: string[]): Promise<[string, string, StreamEntry[]]>;
}
