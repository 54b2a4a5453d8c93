-- Drop every retained event of a table (e.g. between hands), keeping readers honest.
-- KEYS: state, events (with the table's hash tag)
-- Reply: 1 if the table exists, 0 otherwise

local state_key, events_key = KEYS[1], KEYS[2]

if redis.call('EXISTS', state_key) == 0 then
  return 0
end

-- Moving the trim mark up to the last event written makes every reader that had not seen
-- all of them take a fresh snapshot, while readers that are up to date read on untouched.
-- Without the mark they would wait forever for events that are gone.
redis.call('HSET', state_key, 'x', redis.call('HGET', state_key, 'e'))
-- A Redis 7 stream costs at least one preallocated 4 KB node however few entries it has;
-- an idle table should not pay it.
redis.call('DEL', events_key)
return 1
