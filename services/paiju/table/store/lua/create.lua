-- Create a table at version 1.
-- KEYS: state, events, deadlines, outbox, outbox-acked (all with the table's hash tag)
-- ARGV: state bytes, then meta field/value pairs
-- Reply: {'ok', 1} or {'exists', current version}

local state_key, events_key, deadlines_key = KEYS[1], KEYS[2], KEYS[3]

-- Refuse an existing table: two servers opening the same id must not overwrite each
-- other's hand; only the first one wins.
local current = redis.call('HGET', state_key, 'v')
if current then
  return {'exists', current}
end

-- Events and deadlines left by an earlier table of this id (e.g. a state key removed by an
-- operator) must not leak into the new table. The outbox is kept on purpose: its pending
-- entries are settlements still owed, and its acknowledged keys keep guarding against a
-- settlement being queued twice.
redis.call('DEL', events_key, deadlines_key)

-- v: version, s: state bytes, e: id of the last event written, x: id of the last event
-- trimmed from the stream ('0-0': none), m:<name>: meta.
local fields = {'v', 1, 's', ARGV[1], 'e', '0-0', 'x', '0-0'}
for i = 2, #ARGV, 2 do
  fields[#fields + 1] = 'm:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', state_key, unpack(fields))
return {'ok', 1}
