-- Put a table's deadline index entry right: its earliest deadline, or none (a listing found the
-- entry earlier than anything the table has due; commits leave it early, see commit.lua).
-- KEYS: state, events, deadlines (with the table's hash tag; the last two only as an older
--       store left them, see table_state.lua), and the global deadline index (a single Redis)
-- ARGV: the table's id
-- Reply: the table's earliest deadline (ms), or false

local table_state = read_table_state(KEYS[1], KEYS[2], KEYS[3])
local earliest = table_state and earliest_due(table_state.deadlines)
set_index_entry(KEYS[4], ARGV[1], earliest)
return earliest
