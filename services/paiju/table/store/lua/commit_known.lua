-- Commit one action on a table whose stored string the committing process knows: the process
-- made the new string whole (images.py), so this script only checks that the table still
-- begins with the prefix that process knows (its header line, meta and deadlines: see
-- images.py for why that prefix stands for the whole string), then sets it, queues the outbox
-- entries and tells of the commit, all or nothing, as commit.lua does.
-- KEYS: state, events, deadlines, outbox, outbox-acked, watching (all with the table's hash
--       tag), and on a single Redis the global deadline and outbox indexes
-- ARGV: the prefix the table must begin with, the new stored string, the deadline index entry
--       ('' leaves it, '-' removes it, else the table's earliest due time), outbox count, then
--       per entry: key, payload, the member its acknowledgement leaves in outbox-acked, then the
--       outbox channel, the table id, the prefix of the listeners' channels, the notice ('' when
--       the commit added no events), the listener not to tell ('' for none), the time (epoch
--       ms) the listeners' watches are checked against (see commit_parts.lua), and '1' to count
--       the outbox's entries after the commit
-- Reply: {'ok', pending outbox entries (-1: the commit queued none), the entries the outbox
--        holds after the commit, whoever queued or acknowledged them (-1 when the commit
--        queued none and was not asked to count them)}, {'changed', the stored
--        string, or false when there is no table}, {'legacy'} (the table is in an older store's
--        form: commit.lua rewrites it), or {'duplicate', outbox key}.

local state_key, outbox_key, acked_key, watching_key, deadline_index_key, outbox_index_key =
  KEYS[1], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local expected, new_stored, index_entry = ARGV[1], ARGV[2], ARGV[3]

-- Only the prefix is read: the kilobyte or two after it is what the process knows already.
local head = redis.pcall('GETRANGE', state_key, 0, #expected - 1)
if type(head) ~= 'string' then
  return {'legacy'}  -- a hash: the oldest form
end
if head ~= expected then
  return {'changed', redis.call('GET', state_key)}
end

local outbox, acked_members, at = outbox_entries(4)
local outbox_channel, table_id, notice_channels, notice, not_told, now_ms, count_outbox =
  ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], ARGV[at + 5], ARGV[at + 6] == '1'

local refused = refused_outbox_key(outbox_key, acked_key, outbox, acked_members)
if refused then
  return {'duplicate', refused}
end

redis.call('SET', state_key, new_stored)

local pending = -1
if #outbox > 0 then
  redis.call('HSET', outbox_key, unpack(outbox))
  redis.call('PUBLISH', outbox_channel, table_id)
  pending = redis.call('HLEN', outbox_key)
end
-- Counted when asked: a press of start waiting for the last settlement learns from its own
-- commit that the settlement landed (acknowledged by any process), where it would otherwise
-- ask by a read of its own.
local held = pending
if held < 0 and count_outbox then
  held = redis.call('HLEN', outbox_key)
end
if notice ~= '' then
  tell_listeners(watching_key, notice_channels, not_told, now_ms, notice)
end
if deadline_index_key then
  if index_entry ~= '' then
    set_index_entry(deadline_index_key, table_id, index_entry ~= '-' and index_entry)
  end
  if pending > 0 then
    set_index_entry(outbox_index_key, table_id, pending)
  end
end
return {'ok', pending, held}
