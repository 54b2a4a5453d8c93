-- (Prepended to the scripts that read or write a table's state key; see scripts.py.)
-- The state key is one string: a header line 'version last_event_id trim_mark meta_length
-- ring_entries ring_length deadlines_length', then the meta (meta_length bytes: netstrings
-- 'length:name', 'length:value'), then the table's deadlines (deadlines_length bytes: netstrings
-- of each one's name and 'due_ms:version_set_for'), then the ring of the table's latest commits'
-- events (ring_length bytes: per commit, netstrings of its last event id, its version and its
-- packed events), then the state bytes. A string of a few hundred bytes costs far less than the
-- same fields in a hash, which Redis keeps as a full hash table as soon as one value (the state)
-- passes 64 bytes; and a commit that changes the turn timer writes it with the SET it makes
-- anyway, not with commands on a key of its own.
--
-- Older stores left tables in other forms, read here as they are and written in this form by
-- the next script that writes the table: the state as a hash (v, s, e, x, m:<name>), a header
-- without the ring (its events in the table's old stream), a header without the deadlines
-- (its deadlines in the table's old deadlines hash).

local function netstring(text)
  return #text .. ':' .. text
end

-- The values of concatenated netstrings, in order.
local function netstring_values(text)
  local values, at = {}, 1
  while at <= #text do
    local colon = string.find(text, ':', at, true)
    local value_end = colon + tonumber(string.sub(text, at, colon - 1))
    values[#values + 1] = string.sub(text, colon + 1, value_end)
    at = value_end + 1
  end
  return values
end

-- The ring and the state bytes are the bulk of a stored state (a kilobyte or two): each is
-- copied out of the stored string only when a script asks for it (a commit replaces the state
-- and rewrites the ring from the stored string directly), as each copy costs Redis about as much
-- as the SET that writes the table.
local copied_when_asked = {__index = function(table_state, name)
  if name == 'ring' or name == 'state' then
    local value = string.sub(table_state.source, table_state[name .. '_from'], table_state[name .. '_to'])
    rawset(table_state, name, value)
    return value
  end
end}

local function parse_table_state(stored)
  local header_end = string.find(stored, '\n', 1, true)
  local version, last_id, trim_mark, meta_length, rest =
    string.match(string.sub(stored, 1, header_end - 1), '^(%d+) (%S+) (%S+) (%d+)(.*)$')
  local ring_entries, ring_length, deadlines_length = string.match(rest, '^ (%d+) (%d+) ?(%d*)$')
  local meta_end = header_end + tonumber(meta_length)
  local deadlines_end = meta_end + ((deadlines_length or '') ~= '' and tonumber(deadlines_length) or 0)
  local ring_end = deadlines_end + (ring_length and tonumber(ring_length) or 0)
  return setmetatable({
    version = version,
    last_id = last_id,
    trim_mark = trim_mark,
    meta = string.sub(stored, header_end + 1, meta_end),
    -- false: written before the deadlines moved into the state (they are in the old hash)
    deadlines = (deadlines_length or '') ~= '' and netstring_values(string.sub(stored, meta_end + 1, deadlines_end)),
    -- false: written before the ring (its events are in the table's old stream)
    ring_entries = ring_entries and tonumber(ring_entries) or false,
    source = stored, ring_from = deadlines_end + 1, ring_to = ring_end, state_from = ring_end + 1, state_to = -1,
  }, copied_when_asked)
end

-- The string that holds the table's ring and where in it the ring lies (nothing is copied).
local function ring_bounds(table_state)
  local ring = rawget(table_state, 'ring')
  if ring then
    return ring, 1, #ring
  end
  return table_state.source, table_state.ring_from, table_state.ring_to
end

-- The table's state, or nil if there is no table. A table in an older form is read as it is,
-- and readied for the new form in memory only: a script that writes it writes the new form
-- (write_table_state), one that does not leaves it as it was.
--   deadlines: the table's deadlines, a flat list name, 'due_ms:version', name, ...
--   events_in_stream: its events were in the old stream, which the write deletes; the readers
--     behind its last event id then take a fresh snapshot (the trim mark moves up to it)
--   deadlines_in_hash: its deadlines were read from the old hash, which the write deletes
local function read_table_state(state_key, events_key, deadlines_key)
  -- One GET, not TYPE then GET, for the usual string form: a hash answers an error (WRONGTYPE),
  -- which pcall hands back here instead of ending the script.
  local stored = redis.pcall('GET', state_key)
  if not stored then
    return nil
  end
  local table_state
  if type(stored) == 'string' then
    table_state = parse_table_state(stored)
  else
    if redis.call('TYPE', state_key)['ok'] ~= 'hash' then
      error(stored)
    end
    local fields = redis.call('HGETALL', state_key)
    local found, meta = {}, {}
    for i = 1, #fields, 2 do
      local name = fields[i]
      if string.sub(name, 1, 2) == 'm:' then
        meta[#meta + 1] = netstring(string.sub(name, 3)) .. netstring(fields[i + 1])
      else
        found[name] = fields[i + 1]
      end
    end
    table_state = {
      version = found['v'], last_id = found['e'], trim_mark = found['x'],
      meta = table.concat(meta), state = found['s'], ring_entries = false, deadlines = false,
    }
  end
  if not table_state.ring_entries then
    -- The old stream's events are not carried over: a reader behind them takes a fresh snapshot.
    table_state.ring_entries, table_state.ring, table_state.trim_mark = 0, '', table_state.last_id
    table_state.events_in_stream = events_key
  end
  if not table_state.deadlines then
    table_state.deadlines = redis.call('HGETALL', deadlines_key)
    table_state.deadlines_in_hash = deadlines_key
  end
  return table_state
end

-- Write the table in the current form; `ring_tail`, when set, is a new entry after the ring.
local function write_table_state(key, table_state)
  local ring, tail = table_state.ring, table_state.ring_tail or ''
  local deadlines = {}
  for i, value in ipairs(table_state.deadlines) do deadlines[i] = netstring(value) end
  deadlines = table.concat(deadlines)
  redis.call('SET', key, table.concat({
    table_state.version, ' ', table_state.last_id, ' ', table_state.trim_mark, ' ',
    #table_state.meta, ' ', string.format('%d', table_state.ring_entries), ' ', #ring + #tail, ' ', #deadlines, '\n',
    table_state.meta, deadlines, ring, tail, table_state.state,
  }))
  if table_state.events_in_stream then
    redis.call('DEL', table_state.events_in_stream)
  end
  if table_state.deadlines_in_hash then
    redis.call('DEL', table_state.deadlines_in_hash)
  end
end

-- The stored value of the deadline `name` in a flat deadlines list, or nil.
local function deadline_value(deadlines, name)
  for i = 1, #deadlines, 2 do
    if deadlines[i] == name then return deadlines[i + 1] end
  end
  return nil
end

-- Set (value) or remove (value nil) the deadline `name` of a flat deadlines list, in place;
-- true if it removed one.
local function put_deadline(deadlines, name, value)
  for i = 1, #deadlines, 2 do
    if deadlines[i] == name then
      if value then
        deadlines[i + 1] = value
        return false
      end
      table.remove(deadlines, i + 1)
      table.remove(deadlines, i)
      return true
    end
  end
  if value then
    deadlines[#deadlines + 1] = name
    deadlines[#deadlines + 1] = value
  end
  return false
end

-- The earliest due time (epoch ms) in a flat deadlines list (name, 'due_ms:version', ...), or false.
local function earliest_due(fields)
  local earliest = false
  for i = 2, #fields, 2 do
    local due = tonumber(string.match(fields[i], '^(%d+):'))
    if due and (not earliest or due < earliest) then earliest = due end
  end
  return earliest
end

-- Set (value) or remove (value '') one deadline of a table outside a commit, and keep the
-- table's entry in the deadline index (index_key, on a single Redis) exact in the same step.
-- (For the scripts that keep the indexes: index_entries.lua comes before this file in them.)
local function write_deadline(state_key, table_state, name, value, index_key, table_id)
  local deadlines = table_state.deadlines
  local earliest_before = earliest_due(deadlines)
  put_deadline(deadlines, name, value ~= '' and value or nil)
  write_table_state(state_key, table_state)
  local earliest = earliest_due(deadlines)
  if index_key and (earliest ~= earliest_before or table_state.deadlines_in_hash) then
    set_index_entry(index_key, table_id, earliest)
  end
end
