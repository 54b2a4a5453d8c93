"""Who is connected: every open Watch stream beats for its player, and silence is noticed.

Presence is the truth of the live streams. A sorted set holds ``table_id \\x1f account`` members
scored by the last beat of any of the player's streams (epoch ms); each player also has a small
sorted set of their streams' ids scored by each stream's last beat, so streams of one player on
several server processes are counted together. When a stream closes and no other stream of the
player has beaten lately, the player goes into the *closed* set, scored by when: the next sweep
takes them at once. A server killed with its streams stops beating, so its players are noticed
by their silence just the same, :data:`QUIET_AFTER_MS` after their last beat.

A beat that finds its player missing from the set (taken by a sweep meanwhile, or lost with
Redis's data) says so, so that the table service can mark the player back: a live stream never
ends in an escape. Every key carries one hash tag, so the scripts work under Redis Cluster.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paiju.common.redis_clients import RegisteredScript

log = logging.getLogger(__name__)

SEPARATOR = "\x1f"
QUIET_AFTER_MS = 10_000
"""A player whose streams have not beaten for this long is disconnected."""
STREAMS_KEPT_MS = 3 * QUIET_AFTER_MS
"""How long a player's stream ids outlive their last beat (a killed server never closes them)."""
STREAM_SCORED_EVERY_MS = 3_000
"""How often a beating stream's score in its player's stream set is written, and with it the
player's own score on the board (and the check that the player is still on it). The set says
which of a player's streams still live when one closes (those scored within
:data:`QUIET_AFTER_MS`), the board which players are silent (none scored within it): written every
other beat (one every two seconds), a live stream's scores are at most about four seconds old
there, and a beat that fails is tried again half a second later. A ZADD per stream at every beat
was one Redis command in nine of a played table's; the board's own writes at every beat were
most of what the watched tables' players cost Redis between their moves."""
EXPIRY_PUSHED_EVERY_MS = QUIET_AFTER_MS
"""How long after a beating stream pushed its player's stream set's expiry on (to
:data:`STREAMS_KEPT_MS` from then) the next write of its score pushes it again: every 12 s at
most with a score every 4 s, well within the set's 30 s, so a set never runs out while a stream
in it beats. A PEXPIRE at every beat was another command in nine."""

# Take the players whose last stream closed, and those silent since ``ARGV[2]`` (unless it is
# negative: the sweeper could not observe long enough), out of the sets, atomically, so that of
# several sweeping replicas exactly one handles each.
_CLAIM = """
local closed = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
for i = 1, #closed, 2 do
  redis.call('ZREM', KEYS[2], closed[i])
  redis.call('ZREM', KEYS[1], closed[i])
end
local silent = {}
if tonumber(ARGV[2]) >= 0 then
  silent = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'WITHSCORES', 'LIMIT', 0, ARGV[3])
  for i = 1, #silent, 2 do redis.call('ZREM', KEYS[1], silent[i]) end
end
return {closed, silent}
"""

# Streams alive at ARGV[1] whose scores are due: KEYS[3..] are their players' stream sets,
# ARGV[3..] each's player, stream id and what to write in its set, in threes: '1' the stream's
# score (and the set's expiry if the stream is new in it: the set may have just been made), '2'
# both. Returns the players that were missing from the board. The board's own sets are asked and
# written once for the whole batch (ZMSCORE, one ZADD, one ZREM): a command per stream on them
# was most of what an idle table's players cost Redis.
_BEAT = """
local members, scored = {}, {}
for i = 3, #KEYS do
  local member = ARGV[3 * i - 6]
  members[#members + 1] = member
  scored[#scored + 1] = ARGV[1]
  scored[#scored + 1] = member
end
local back = {}
if #members == 0 then return back end
local scores = redis.call('ZMSCORE', KEYS[1], unpack(members))
for j = 1, #members do
  if not scores[j] then back[#back + 1] = members[j] end
end
redis.call('ZADD', KEYS[1], 'GT', unpack(scored))
if redis.call('ZCARD', KEYS[2]) > 0 then redis.call('ZREM', KEYS[2], unpack(members)) end
for i = 3, #KEYS do
  local added = redis.call('ZADD', KEYS[i], ARGV[1], ARGV[3 * i - 5])
  if added == 1 or ARGV[3 * i - 4] == '2' then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return back
"""
BEATS_PER_SCRIPT = 100
"""Streams one beat script takes. Redis runs a script alone, so every other command waits for it:
a script of 500 streams held Redis 3–8 ms on this project's machine (its slow log, 200 tables
played), long enough to show in an action's commit behind it; one of 100 holds it under 1 ms.
A hub of 1,000 streams makes ten round trips a beat instead of two."""

# A stream closed: forget it; if no other stream of the player beat within the quiet time and
# the player is still present, the player is gone since now.
_CLOSE = """
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
if redis.call('ZCARD', KEYS[3]) > 0 or not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class Silence:
    table_id: str
    account: str
    since_ms: int
    """When the player counts as disconnected: when their last stream closed, or
    :data:`QUIET_AFTER_MS` after their last beat. The reconnect window opens then."""


class PresenceBoard:
    def __init__(self, client: Any, prefix: str = "paiju") -> None:
        self._client = client
        self.prefix = prefix
        tag = f"{prefix}:{{presence}}"  # the prefix first: what scans of a prefix find
        self.key = tag
        self.closed_key = f"{tag}:closed"
        self._streams_prefix = f"{tag}:streams:"
        self._claim = RegisteredScript(client, _CLAIM)
        self._beat = RegisteredScript(client, _BEAT)
        self._close = RegisteredScript(client, _CLOSE)
        self._written_ms: dict[tuple[str, str], tuple[int, int]] = {}
        """Per stream set and stream, when a beat of this board last wrote the stream's score
        there, and when it last pushed the set's expiry on."""

    @staticmethod
    def _member(table_id: str, account: str) -> str:
        return f"{table_id}{SEPARATOR}{account}"

    def _streams_key(self, member: str) -> str:
        return self._streams_prefix + member

    def beat(self, table_id: str, account: str, now_ms: int, stream: str = "") -> bool:
        """A stream of ``account`` on ``table_id`` is alive at ``now_ms``; True if the player
        was missing (taken as gone by a sweep, or new here)."""
        return bool(self.beat_many([(table_id, account, stream)], now_ms))

    def beat_many(self, streams: list[tuple[str, str, str]], now_ms: int) -> list[tuple[str, str]]:
        """Many ``(table_id, account, stream)`` alive at ``now_ms`` (a process's whole hub), a
        few round trips for all; the players that were missing from the board, to be marked back."""
        back: set[tuple[str, str]] = set()
        written = self._written_ms
        if len(written) > 2 * len(streams) + 1_000:  # streams closed since: forget them
            self._written_ms = written = {stream: at for stream, at in written.items()
                                          if 0 <= now_ms - at[1] < EXPIRY_PUSHED_EVERY_MS}
        due: list[tuple[str, str, str, str, tuple[int, int]]] = []
        for table_id, account, stream in streams:
            member = self._member(table_id, account)
            key = self._streams_key(member)
            scored, pushed = written.get((key, stream), (None, None))
            if _within(now_ms, scored, STREAM_SCORED_EVERY_MS):
                continue  # scored at the last beat: at the next
            if _within(now_ms, pushed, EXPIRY_PUSHED_EVERY_MS):
                due.append((key, member, stream, "1", (now_ms, pushed)))  # type: ignore[arg-type]
            else:
                due.append((key, member, stream, "2", (now_ms, now_ms)))
        for start in range(0, len(due), BEATS_PER_SCRIPT):
            batch = due[start:start + BEATS_PER_SCRIPT]
            keys, args = [self.key, self.closed_key], [now_ms, STREAMS_KEPT_MS]
            for key, member, stream, write, _ in batch:
                keys.append(key)
                args += [member, stream, write]
            back.update(_player(member) for member in self._beat(keys=keys, args=args))
            written.update(((key, stream), at) for key, _, stream, _, at in batch)  # only once the script ran
        return sorted(back)

    def closed(self, table_id: str, account: str, now_ms: int, stream: str = "") -> bool:
        """A stream closed; True if it was the player's last live one (gone since now)."""
        member = self._member(table_id, account)
        keys = [self.key, self.closed_key, self._streams_key(member)]
        self._written_ms.pop((keys[2], stream), None)  # a stream of that id beating again is new
        return bool(self._close(keys=keys, args=[member, stream, now_ms, QUIET_AFTER_MS]))

    def put_back(self, silence: Silence) -> None:
        """Return a claimed silence, as it was, for the next sweep (its handling failed)."""
        self._client.zadd(self.closed_key, {self._member(silence.table_id, silence.account): silence.since_ms}, nx=True)

    def forget_if_beaten(self, table_id: str, account: str) -> bool:
        """After a disconnection was applied: if a stream of the player beat since the sweep
        took them, drop the member again, so that stream's next beat marks the player back (a
        beat between the sweep and the disconnection would otherwise be lost on it)."""
        return bool(self._client.zrem(self.key, self._member(table_id, account)))

    def streams(self, table_id: str, account: str) -> int:
        """How many streams of the player the board knows of (open, or gone without closing
        and not yet forgotten)."""
        return int(self._client.zcard(self._streams_key(self._member(table_id, account))))

    def last_beat(self, table_id: str, account: str) -> int | None:
        score = self._client.zscore(self.key, self._member(table_id, account))
        return None if score is None else int(score)

    def claim_silent(self, now_ms: int, limit: int = 100, observed_since_ms: int | None = None) -> list[Silence]:
        """The players whose last stream closed, and those silent for at least
        :data:`QUIET_AFTER_MS`, each handed to one caller. Silence counts only from
        ``observed_since_ms`` on (when the sweeper began to see the board without a gap)."""
        silent_cutoff = now_ms - QUIET_AFTER_MS
        if observed_since_ms is not None and observed_since_ms > silent_cutoff:
            silent_cutoff = -1  # not watched long enough to call anyone silent
        closed, silent = self._claim(keys=[self.key, self.closed_key], args=[now_ms, silent_cutoff, limit])
        found = [self._silence(member, int(float(score))) for member, score in zip(closed[::2], closed[1::2])]
        for member, score in zip(silent[::2], silent[1::2]):
            since = int(float(score)) + QUIET_AFTER_MS
            found.append(self._silence(member, since if observed_since_ms is None else max(since, observed_since_ms)))
        return found

    @staticmethod
    def _silence(member: Any, since_ms: int) -> Silence:
        return Silence(*_player(member), since_ms)


def _within(now_ms: int, at: int | None, period_ms: int) -> bool:
    """Whether ``at`` is less than ``period_ms`` before ``now_ms`` (a clock gone back: no)."""
    return at is not None and 0 <= now_ms - at < period_ms


def _player(member: Any) -> tuple[str, str]:
    """The table and account of a board member."""
    text = member.decode() if isinstance(member, bytes) else member
    table_id, _, account = text.partition(SEPARATOR)
    return table_id, account


class StreamPresence:
    """The beats of one process's live streams, and what a beat that finds its player missing
    means: the watchdog took the player as gone (a stream closed elsewhere, an outage) while a
    stream here lived, so ``mark_back(table_id, account)`` brings them back before their
    reconnect window can close (a no-op for a player still marked connected)."""

    def __init__(self, board: PresenceBoard, mark_back: Callable[[str, str], object]) -> None:
        self.board = board
        self.mark_back = mark_back
        self._to_mark_back: set[tuple[str, str]] = set()
        """Players a beat found missing whose marking back failed: tried again at the next beat."""

    def beat(self, streams: list[tuple[str, str, str]], now_ms: int) -> None:
        self._to_mark_back.update(self.board.beat_many(streams, now_ms))
        for table_id, account in sorted(self._to_mark_back):
            try:
                self.mark_back(table_id, account)
            except LookupError:
                pass  # the table is gone
            except Exception:
                log.exception("marking %s back at %s failed; trying again at the next beat", account, table_id)
                continue
            self._to_mark_back.discard((table_id, account))
