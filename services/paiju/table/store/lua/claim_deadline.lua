-- Claim one due deadline: exactly one claimer gets it.
-- KEYS: deadlines (with the table's hash tag), and on a single Redis the global deadline index
-- ARGV: name, version it was set for, now (epoch ms), new stored value ('' to remove it;
--       'due_ms:version' to lease it until due_ms), and with the index the table's id
-- Reply: 1 if this caller claimed it, 0 otherwise

local deadlines_key, index_key = KEYS[1], KEYS[2]
local name, version_set_for, now_ms, leased_value, table_id = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5]

-- Gone: another claimer took it first, or a commit cleared it.
local stored = redis.call('HGET', deadlines_key, name)
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

if leased_value == '' then
  redis.call('HDEL', deadlines_key, name)
else
  redis.call('HSET', deadlines_key, name, leased_value)
end
-- The index in the same step, exact, so the next listing finds the table when it is next due.
if index_key then
  set_index_entry(index_key, table_id, earliest_due(redis.call('HGETALL', deadlines_key)))
end
return 1
