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

