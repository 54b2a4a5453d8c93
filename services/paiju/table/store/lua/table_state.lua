-- (Prepended to the scripts that read or write a table's state key; see scripts.py.)
-- The state key is one string: a header line 'version last_event_id trim_mark meta_length
-- ring_entries ring_length', then the meta (meta_length bytes: netstrings 'length:name',
-- 'length:value'), then the ring of the table's latest commits' events (ring_length bytes: per
-- commit, netstrings of its last event id, its version and its packed events), then the state
-- bytes. A string of a few hundred bytes costs far less than the same fields in a hash, which
-- Redis keeps as a full hash table as soon as one value (the state) passes 64 bytes.

local function parse_table_state(stored)
  local header_end = string.find(stored, '\n', 1, true)
  local version, last_id, trim_mark, meta_length, rest =
    string.match(string.sub(stored, 1, header_end - 1), '^(%d+) (%S+) (%S+) (%d+)(.*)$')
  local ring_entries, ring_length = string.match(rest, '^ (%d+) (%d+)$')
  local meta_end = header_end + tonumber(meta_length)
  local ring_end = meta_end + (ring_length and tonumber(ring_length) or 0)
  return {
    version = version,
    last_id = last_id,
    trim_mark = trim_mark,
    meta = string.sub(stored, header_end + 1, meta_end),
    -- false: written before the ring (its events are in the table's old stream)
    ring_entries = ring_entries and tonumber(ring_entries) or false,
    ring = string.sub(stored, meta_end + 1, ring_end),
    state = string.sub(stored, ring_end + 1),
  }
end

local function write_table_state(key, table_state)
  local ring = table_state.ring or ''
  redis.call('SET', key, table.concat({
    table_state.version, ' ', table_state.last_id, ' ', table_state.trim_mark, ' ',
    #table_state.meta, ' ', string.format('%d', table_state.ring_entries or 0), ' ', #ring, '\n',
    table_state.meta, ring, table_state.state,
  }))
end

local function netstring(text)
  return #text .. ':' .. text
end

-- The table's state, or nil if there is no table. A table written by an older store is a hash
-- (v, s, e, x, m:<name>): it is rewritten here in the string form, once.
local function read_table_state(key)
  -- One GET, not TYPE then GET, for the usual string form: a hash answers an error (WRONGTYPE),
  -- which pcall hands back here instead of ending the script.
  local stored = redis.pcall('GET', key)
  if not stored then
    return nil
  end
  if type(stored) == 'string' then
    return parse_table_state(stored)
  end
  if redis.call('TYPE', key)['ok'] ~= 'hash' then
    error(stored)
  end
  local fields = redis.call('HGETALL', key)
  local found, meta = {}, {}
  for i = 1, #fields, 2 do
    local name = fields[i]
    if string.sub(name, 1, 2) == 'm:' then
      meta[#meta + 1] = netstring(string.sub(name, 3)) .. netstring(fields[i + 1])
    else
      found[name] = fields[i + 1]
    end
  end
  local table_state = {
    version = found['v'], last_id = found['e'], trim_mark = found['x'],
    meta = table.concat(meta), state = found['s'],
  }
  redis.call('DEL', key)
  write_table_state(key, table_state)
  return table_state
end
