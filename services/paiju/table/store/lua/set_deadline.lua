-- Set (or clear) one deadline outside a commit (the table's version is unchanged): a mark that fires only
-- if the change it guards never commits (a hand's start that crashed between its holds and its
-- deal). A commit that lands clears it by name.
-- KEYS: state, events, deadlines (with the table's hash tag; the last two only as an older
--       store left them, see table_state.lua), and on a single Redis the global deadline index
-- ARGV: name, stored value ('due_ms:version', or '' to clear it), and with the index the table's id
-- Reply: 1, or 0 when there is no such table (nothing is set)

local state_key, events_key, deadlines_key, index_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, value, table_id = ARGV[1], ARGV[2], ARGV[3]

local table_state = read_table_state(state_key, events_key, deadlines_key)
if not table_state then
  return 0
end
write_deadline(state_key, table_state, name, value, index_key, table_id)
return 1
