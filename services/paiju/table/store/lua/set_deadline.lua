-- Set (or clear) one deadline outside a commit (the table's version is unchanged): a mark that fires only
-- if the change it guards never commits (a hand's start that crashed between its holds and its
-- deal). A commit that lands clears it by name.
-- KEYS: state, events, deadlines (with the table's hash tag; the last two only as an older
--       store left them, see table_state.lua), and on a single Redis the global deadline index
-- ARGV: name, stored value ('due_ms:version', or '' to clear it), the table's id (for the
--       index), and the prefix the caller knows the table to begin with ('' for none: see
--       images.py)
-- Reply: 2 when the table began with that prefix (the caller can make the string written
--        itself), 1 when it did not, or 0 when there is no such table (nothing is set)

local state_key, events_key, deadlines_key, index_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, value, table_id, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local table_state = read_table_state(state_key, events_key, deadlines_key)
if not table_state then
  return 0
end
local known = expected ~= '' and table_state.source ~= nil
  and string.sub(table_state.source, 1, #expected) == expected
write_deadline(state_key, table_state, name, value, index_key, table_id)
if known then
  return 2
end
return 1
