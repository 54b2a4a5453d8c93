-- Drop every retained event of a table (e.g. between hands), keeping readers honest.
-- KEYS: state, events, deadlines (with the table's hash tag; the last two only as an older store
--       left them, see table_state.lua)
-- Reply: 1 if the table exists, 0 otherwise

local state_key, events_key, deadlines_key = KEYS[1], KEYS[2], KEYS[3]

local table_state = read_table_state(state_key, events_key, deadlines_key)
if not table_state then
  return 0
end

-- Moving the trim mark up to the last event written makes every reader that had not seen
-- all of them take a fresh snapshot, while readers that are up to date read on untouched.
-- Without the mark they would wait forever for events that are gone.
table_state.trim_mark = table_state.last_id
table_state.ring_entries, table_state.ring = 0, ''
write_table_state(state_key, table_state)
return 1
