-- Claim one due deadline: exactly one claimer gets it.
-- KEYS: state, events, deadlines (with the table's hash tag; the last two only as an older
--       store left them, see table_state.lua), and on a single Redis the global deadline index
-- ARGV: name, version it was set for, now (epoch ms), new stored value ('' to remove it;
--       'due_ms:version' to lease it until due_ms), and with the index the table's id
-- Reply: 1 if this caller claimed it, 0 otherwise

local state_key, events_key, deadlines_key, index_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, version_set_for, now_ms, leased_value, table_id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]

-- A deleted table's deadlines went with it.
local table_state = read_table_state(state_key, events_key, deadlines_key)
if not table_state then
  return 0
end

-- Gone: another claimer took it first, or a commit cleared it.
local deadlines = table_state.deadlines
local stored = deadline_value(deadlines, name)
if not stored then
  return 0
end

-- Replaced by a commit since the caller listed it: the new deadline is a different one and
-- is claimed on its own terms.
local due, version = string.match(stored, '^(%d+):(%d+)$')
if version ~= version_set_for then
  return 0
end

-- Not due (or re-leased by another claimer, which pushed it into the future): a claimer
-- with a fast clock must not take a deadline early.
if tonumber(due) > now_ms then
  return 0
end

-- The index in the same step, exact, so the next listing finds the table when it is next due.
write_deadline(state_key, table_state, name, leased_value, index_key, table_id)
return 1
