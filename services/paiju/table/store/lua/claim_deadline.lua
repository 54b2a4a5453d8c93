-- Claim one due deadline: exactly one claimer gets it.
-- KEYS: deadlines (with the table's hash tag)
-- ARGV: name, version it was set for, now (epoch ms), new stored value ('' to remove it;
--       'due_ms:version' to lease it until due_ms)
-- Reply: 1 if this caller claimed it, 0 otherwise

local deadlines_key = KEYS[1]
local name, version_set_for, now_ms, leased_value = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

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
return 1
