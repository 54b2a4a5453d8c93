-- (Prepended to the commit scripts; see scripts.py.) Who hears of a table's commits: each
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
