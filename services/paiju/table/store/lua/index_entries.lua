-- (Prepended to the scripts that keep the global indexes themselves on a single Redis; see
-- scripts.py.) An index is a sorted set of table ids: the deadline index scored by each
-- table's earliest deadline, the outbox index by its count of pending entries.

-- Score `member` in the index at `key`, or remove it when `score` is false.
local function set_index_entry(key, member, score)
  if score then
    redis.call('ZADD', key, score, member)
  else
    redis.call('ZREM', key, member)
  end
end

-- The earliest due time (epoch ms) among a deadlines hash's HGETALL fields, or false.
local function earliest_due(fields)
  local earliest = false
  for i = 2, #fields, 2 do
    local due = tonumber(string.match(fields[i], '^(%d+):'))
    if due and (not earliest or due < earliest) then earliest = due end
  end
  return earliest
end
