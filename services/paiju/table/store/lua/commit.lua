-- Commit one action: compare-and-set of the table state, all or nothing.
-- KEYS: state, events and deadlines (an older store's stream and hash, see table_state.lua),
--       outbox, outbox-acked, watching (see commit_parts.lua; all with the table's hash tag), and on a
--       single Redis (not a cluster, where they live in other slots) the global deadline and
--       outbox indexes
-- ARGV: expected version, new state bytes, how many commits' events the state keeps,
--       event count, the events packed as one value (records.pack_events),
--       deadline-set count, then per deadline: name, stored value ('due_ms:version'),
--       deadline-clear count, then names,
--       outbox count, then per entry: key, payload, the member its acknowledgement leaves in
--       outbox-acked (6 bytes of the key's hash),
--       then the prefix of the listeners' channels that hear of commits with events, the table
--       id, the outbox channel, the listener not to tell (its process hands its commits out
--       itself; '' for none) and the time (epoch ms) the listeners' watches are checked against
-- Reply: {'ok', new version, last event id, earliest deadline due (ms, or false; -1 when the
--        commit leaves the table's deadline index entry as it stands), pending outbox entries (-1: unchanged, the commit queued
--        none), the last event id before this commit, the number of deadline fields, those
--        fields (name, stored value, ...)}, {'stale', current version, last event id, state,
--        stored string},
--        {'missing'}, or {'duplicate', outbox key}. The events' ids are the sequence numbers up
--        to the last event id (records.event_ids).

local state_key, events_key, deadlines_key, outbox_key, acked_key, watching_key, deadline_index_key,
  outbox_index_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]

-- A commit never brings a table into being: only create() does, so a deleted table stays
-- deleted even if a late writer still holds its old version.
local table_state = read_table_state(state_key, events_key, deadlines_key)
if not table_state then
  return {'missing'}
end
local current = table_state.version

-- The compare of compare-and-set: a writer that loaded an older version lost the race and
-- must reload. Versions are stored and passed as canonical decimal strings, so comparing
-- the strings compares the numbers.
if current ~= ARGV[1] then
  -- With the state as it is, and the whole stored string (false for the oldest form): the
  -- writer tries again on it without reading it, and knows it whole (images.py).
  return {'stale', current, table_state.last_id, table_state.state, table_state.source or false}
end

local new_state, keep_length = ARGV[2], tonumber(ARGV[3])
local at = 4

local event_count, packed_events = tonumber(ARGV[at]), ARGV[at + 1]
at = at + 2

local deadlines_set = {}
for _ = 1, tonumber(ARGV[at]) do
  deadlines_set[#deadlines_set + 1] = ARGV[at + 1]
  deadlines_set[#deadlines_set + 1] = ARGV[at + 2]
  at = at + 2
end
at = at + 1

local deadlines_clear = {}
for _ = 1, tonumber(ARGV[at]) do
  deadlines_clear[#deadlines_clear + 1] = ARGV[at + 1]
  at = at + 1
end
at = at + 1

local outbox, acked_members
outbox, acked_members, at = outbox_entries(at)
local notice_channels, table_id, outbox_channel, not_told, now_ms =
  ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], ARGV[at + 4]

local refused = refused_outbox_key(outbox_key, acked_key, outbox, acked_members)
if refused then
  return {'duplicate', refused}
end

local version = string.format('%d', tonumber(current) + 1)
table_state.version = version
table_state.state = new_state

local previous_id = table_state.last_id
local last_id = previous_id
if event_count > 0 then
  -- The commit's events are one entry of the ring, written by the SET below that writes the
  -- state anyway: no stream, no second key. The entry's id is its last event's, the sequence
  -- numbers before it its other events' (records.event_ids), continuing from the table's last
  -- event id (no clock: ids only need to grow). The version rides with the entry so a reader
  -- can line events up with snapshots.
  local ms, seq = string.match(previous_id, '^(%d+)%-(%d+)$')
  last_id = ms .. '-' .. string.format('%d', tonumber(seq) + event_count)
  table_state.last_id = last_id
  -- The ring keeps the newest keep_length commits. The last dropped entry's id is the trim
  -- mark: a reader resuming from an older id would silently miss events, so it is told to take
  -- a fresh snapshot instead. The ring is read where it lies in the stored string, and what is
  -- kept of it is copied once.
  local source, at, ring_to = ring_bounds(table_state)
  local entries = table_state.ring_entries + 1
  while entries > keep_length do
    local colon = string.find(source, ':', at, true)
    local id_end = colon + tonumber(string.sub(source, at, colon - 1))
    table_state.trim_mark = string.sub(source, colon + 1, id_end)
    at = id_end + 1
    for _ = 1, 2 do  -- the entry's version and events
      colon = string.find(source, ':', at, true)
      at = colon + tonumber(string.sub(source, at, colon - 1)) + 1
    end
    entries = entries - 1
  end
  table_state.ring = string.sub(source, at, ring_to)
  table_state.ring_tail = netstring(last_id) .. netstring(version) .. netstring(packed_events)
  table_state.ring_entries = entries
end
-- The deadlines ride in the state too: the turn timer a move replaces costs no command of its own.
-- Clears before sets, so a name that is replaced ends up set (the client refuses a name
-- in both lists anyway).
local deadlines = table_state.deadlines
local earliest_before = earliest_due(deadlines)
local removed = false
for _, name in ipairs(deadlines_clear) do
  removed = put_deadline(deadlines, name, nil) or removed
end
for i = 1, #deadlines_set, 2 do
  put_deadline(deadlines, deadlines_set[i], deadlines_set[i + 1])
end
write_table_state(state_key, table_state)

if #outbox > 0 then
  redis.call('HSET', outbox_key, unpack(outbox))
  -- The relay waits on this channel: a hand's settlement goes to the ledger as the hand ends,
  -- not at the relay's next pass (its passes are only the safety net for a lost notice).
  redis.call('PUBLISH', outbox_channel, table_id)
end

-- Stream readers wait on notices instead of on every watched stream at once, and read only the
-- tables named. A notice can be lost (a reader reconnecting): readers also sweep all their
-- streams now and then.
-- The notice names the table and its last event id: a reader that has read that far already
-- need not read.
if event_count > 0 then
  tell_listeners(watching_key, notice_channels, not_told, now_ms, table_id .. '\n' .. last_id)
end

-- What the global indexes must say after this commit, known here exactly: written here when
-- they are at hand; else the caller notes them. Only what this commit changed is written.
-- The deadline index holds each table's earliest deadline or an earlier time, never a later
-- one: no deadline is ever late. A commit writes the table's entry, exactly, when its earliest
-- deadline moves earlier, or goes, or when it cleared one; one that only pushes a deadline later
-- (a move pushes the turn timer on) leaves the entry early, as it stands, and the listing that
-- finds it early puts it right (due_deadlines). Moves come far more often than a turn runs out.
-- A commit never takes an outbox entry away (an acknowledgement does, and keeps the index
-- itself), so without new entries the outbox and its index stand, and the pending count is
-- answered as -1 (unchanged). A table an older store wrote has its entry written once, exact.
local earliest = earliest_due(deadlines)
local index_moves = table_state.deadlines_in_hash or (earliest ~= earliest_before
  and (removed or not earliest or not earliest_before or earliest < earliest_before))
local pending = -1
if #outbox > 0 then
  pending = redis.call('HLEN', outbox_key)
end
if deadline_index_key then
  if index_moves then
    set_index_entry(deadline_index_key, table_id, earliest)
  end
  if pending > 0 then
    set_index_entry(outbox_index_key, table_id, pending)
  end
end
-- The last id gives the committing process its events' ids, to hand them to its own watchers
-- without reading them back; the id before them tells it whether its watchers had seen
-- everything up to here.
-- The deadlines spare it a read for the timers a view shows.
local earliest_answer = earliest
if not index_moves then
  earliest_answer = -1
end
local reply = {'ok', version, last_id, earliest_answer, pending, previous_id, #deadlines}
for _, field in ipairs(deadlines) do reply[#reply + 1] = field end
return reply
