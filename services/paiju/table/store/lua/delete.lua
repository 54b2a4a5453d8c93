-- Delete a table.
-- KEYS: state, events, deadlines, outbox, outbox-acked (all with the table's hash tag)
-- Reply: 1 if the table existed, 0 otherwise

local state_key, events_key, deadlines_key, outbox_key, acked_key =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

local existed = redis.call('EXISTS', state_key)
redis.call('DEL', state_key, events_key, deadlines_key)

-- Pending outbox entries are money still owed: they outlive the table until acknowledged
-- (ack_outbox.lua drops the rest once the last one is delivered).
if redis.call('EXISTS', outbox_key) == 0 then
  redis.call('DEL', acked_key)
end
return existed
