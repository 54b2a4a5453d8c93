-- Set (or clear) one deadline outside a commit (the table's version is unchanged): a mark that fires only
-- if the change it guards never commits (a hand's start that crashed between its holds and its
-- deal). A commit that lands clears it by name.
-- KEYS: deadlines (with the table's hash tag), and on a single Redis the global deadline index
-- ARGV: name, stored value ('due_ms:version', or '' to clear it), and with the index the table's id
-- Reply: 1

local deadlines_key, index_key = KEYS[1], KEYS[2]
local name, value, table_id = ARGV[1], ARGV[2], ARGV[3]

if value == '' then
  redis.call('HDEL', deadlines_key, name)
else
  redis.call('HSET', deadlines_key, name, value)
end
if index_key then
  set_index_entry(index_key, table_id, earliest_due(redis.call('HGETALL', deadlines_key)))
end
return 1
