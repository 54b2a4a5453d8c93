-- Create a table at version 1.
-- KEYS: state, events, deadlines, outbox, outbox-acked (all with the table's hash tag)
-- ARGV: state bytes, meta (netstrings of name and value, see table_state.lua)
-- Reply: {'ok', 1} or {'exists', current version}

local state_key, events_key, deadlines_key = KEYS[1], KEYS[2], KEYS[3]

-- Refuse an existing table: two servers opening the same id must not overwrite each
-- other's hand; only the first one wins.
local current = read_table_state(state_key, events_key, deadlines_key)
if current then
  return {'exists', current.version}
end

-- Events and deadlines left by an earlier table of this id (e.g. a state key removed by an
-- operator) must not leak into the new table. The outbox is kept on purpose: its pending
-- entries are settlements still owed, and its acknowledged keys keep guarding against a
-- settlement being queued twice.
redis.call('DEL', events_key, deadlines_key)

-- The last event written and the last one trimmed are '0-0': none yet.
write_table_state(state_key, {
  version = 1, last_id = '0-0', trim_mark = '0-0', ring_entries = 0, ring = '', deadlines = {}, meta = ARGV[2],
  state = ARGV[1],
})
return {'ok', 1}
