-- (Prepended to the commit scripts, commit.lua and commit_known.lua; see scripts.py.)

-- Who hears of a table's commits: each
-- listener (a process's stream hub, a lobby waiting for a seat) that watches the table is a
-- member of the table's watching set, scored by when its watch runs out (epoch ms), and listens
-- on a channel of its own. A commit tells only them, not every process: a process hears of the
-- tables it watches, and not of its own commits, which it hands out itself.

-- Tell each listener watching the table (its watch not run out at now_ms), but `skipped`, the
-- commit's notice.
local function tell_listeners(watching_key, channel_prefix, skipped, now_ms, notice)
  for _, listener in ipairs(redis.call('ZRANGEBYSCORE', watching_key, now_ms, '+inf')) do
    if listener ~= skipped then
      redis.call('PUBLISH', channel_prefix .. listener, notice)
    end
  end
end

-- The outbox entries of a commit's ARGV from `at` (their count, then per entry: key, payload,
-- the member its acknowledgement leaves in outbox-acked): the entries flat (key, payload, ...),
-- the members, and where the ARGV goes on.
local function outbox_entries(at)
  local outbox, acked_members = {}, {}
  for _ = 1, tonumber(ARGV[at]) do
    outbox[#outbox + 1] = ARGV[at + 1]
    outbox[#outbox + 1] = ARGV[at + 2]
    acked_members[#acked_members + 1] = ARGV[at + 3]
    at = at + 3
  end
  return outbox, acked_members, at + 1
end

-- The first outbox key that may not be queued, or nil. A key may be queued once: not while
-- pending, nor again after it was acknowledged (within the remembered window), so a settlement
-- is never delivered twice from here. Sets written before the store remembered hashes hold the
-- keys themselves, hence the second member asked for (such a key leaves the set after
-- acked_outbox_memory newer acknowledgements). Every refusal comes before a commit's first
-- write: Redis does not undo a script's earlier writes when it stops later.
local function refused_outbox_key(outbox_key, acked_key, outbox, acked_members)
  for i = 1, #outbox, 2 do
    local key = outbox[i]
    if redis.call('HEXISTS', outbox_key, key) == 1 then
      return key
    end
    local acked = redis.call('ZMSCORE', acked_key, acked_members[(i + 1) / 2], key)
    if acked[1] or acked[2] then
      return key
    end
  end
  return nil
end
