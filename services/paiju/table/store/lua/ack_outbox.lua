-- Acknowledge (remove) one outbox entry after it was delivered.
-- KEYS: state, outbox, outbox-acked (all with the table's hash tag), and on a single Redis
--       (not a cluster, where it lives in another slot) the global outbox index
-- ARGV: key, the member that remembers it (6 bytes of its hash), how many acknowledged keys
--       to remember, the table's id, and the channel told of each acknowledgement (its notice:
--       the table's id and the key, parse_settled_notice)
-- Reply: {1 if the entry was pending else 0, the entries still pending}

local state_key, outbox_key, acked_key, index_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local key, member, remember, table_id, settled_channel =
  ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]

-- A repeated acknowledgement (delivery retried) is harmless and changes nothing.
if redis.call('HDEL', outbox_key, key) == 0 then
  return {0, redis.call('HLEN', outbox_key)}
end
local left = redis.call('HLEN', outbox_key)

-- The index in the same step as the outbox, so no commit's note can fall between them.
if index_key then
  set_index_entry(index_key, table_id, left > 0 and left)
end

-- A deleted table keeps its outbox only until the last settlement is delivered.
if redis.call('EXISTS', state_key) == 0 and redis.call('EXISTS', outbox_key) == 0 then
  redis.call('DEL', acked_key)
  return {1, left}
end

-- Remember the key so a commit cannot queue it again; only the latest ones are kept, so a
-- long-lived table stays small.
local newest = redis.call('ZRANGE', acked_key, -1, -1, 'WITHSCORES')
local sequence = 1
if newest[2] then
  sequence = tonumber(newest[2]) + 1
end
redis.call('ZADD', acked_key, sequence, member)
redis.call('ZREMRANGEBYRANK', acked_key, 0, -(remember + 1))
-- A table whose players are all ready waits for its last settlement: the process playing it
-- starts the hand on this notice, not at its start timer's next try. The key tells that process
-- which of the entries it knows of is gone, so it need not read the outbox again to be sure.
redis.call('PUBLISH', settled_channel, table_id .. '\n' .. key)
return {1, left}
