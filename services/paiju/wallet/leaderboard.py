"""Leaderboards: one Redis sorted set per game, the net coins each account won in it.

The ledger is the truth (:meth:`paiju.wallet.Wallet.top`); the sorted set is a fast copy that
settlements keep up to date and that :meth:`Leaderboard.rebuild` can always make again. Keys
under the prefix ``paiju:leaderboard`` (the game in a hash tag, so that a board and its markers
share one Redis Cluster slot):

``paiju:leaderboard:{zhajinhua}``                  sorted set: account id -> net coins won
``paiju:leaderboard:{zhajinhua}:built``            present once a rebuild made the board whole
``paiju:leaderboard:{zhajinhua}:counted:<hand>``   this hand is counted (expires after a day)

A settlement is counted once per hand, whoever delivers it and however often: one script sets
the hand's marker and adds the nets, or does nothing when the marker is already there. A board
that was never built (or was lost with Redis) takes no increments, because it would show only
the hands since; the next read rebuilds it from the ledger instead.

>>> import fakeredis
>>> from paiju.wallet.model import Line, Reason, Settlement
>>> board = Leaderboard(fakeredis.FakeRedis(), prefix="doc:leaderboard")
>>> board.mark_built("zhajinhua")
>>> hand = Settlement("h1", "zhajinhua", (Line(1, -100, Reason.STAKE),
...     Line(2, 95, Reason.POT), Line(9, 5, Reason.FEE)), replayed=False)
>>> board.record(hand, house=9), board.record(hand, house=9)
(<Counted.NOW: 'now'>, <Counted.BEFORE: 'before'>)
>>> board.top("zhajinhua", 10), board.standing("zhajinhua", 1)
([(2, 95), (1, -100)], (2, -100))
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from paiju.common.redis_clients import RegisteredScript, queue_script
from paiju.wallet.model import LeaderboardRow, Settlement

DEFAULT_PREFIX = "paiju:leaderboard"
DEFAULT_MARKER_SECONDS = 86_400
REBUILD_ROWS_MAX = 10_000_000
"""Rebuilds read at most this many accounts of a game from the ledger."""

# KEYS: board, built flag, hand marker. ARGV: marker seconds, then account, net pairs.
_RECORD_SCRIPT = """
if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[1]) then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  return -1
end
for i = 2, #ARGV, 2 do
  redis.call('ZINCRBY', KEYS[1], ARGV[i + 1], ARGV[i])
end
return 1
"""


class Counted(enum.StrEnum):
    """What :meth:`Leaderboard.record` did with a hand."""

    NOW = "now"
    """The hand's nets were added to the board."""
    BEFORE = "before"
    """The hand had been counted already; nothing changed."""
    NOT_BUILT = "not_built"
    """The board is not built: the next rebuild will read the hand from the ledger."""


class LedgerTop(Protocol):
    """What a rebuild needs of the wallet: its best accounts of a game."""

    def top(self, game: str, n: int = 10) -> list[LeaderboardRow]: ...


class Leaderboard:
    """Per-game boards of net coins won, in Redis (a real server or the embedded emulation).

    ``client`` is a ``redis.Redis`` (or ``fakeredis``) client; responses may be bytes or text.
    ``marker_seconds`` is how long a hand is remembered as counted: a repeated delivery later
    than that would count twice (the relay re-sends within seconds; a rebuild repairs anyway).
    """

    def __init__(
        self,
        client: Any,
        prefix: str = DEFAULT_PREFIX,
        *,
        marker_seconds: int = DEFAULT_MARKER_SECONDS,
    ) -> None:
        if not isinstance(prefix, str) or not prefix or any(c in prefix for c in "{} "):
            raise ValueError(
                f"a leaderboard prefix is non-empty text without braces, got {prefix!r}"
            )
        if isinstance(marker_seconds, bool) or not isinstance(marker_seconds, int):
            raise TypeError(f"marker_seconds is a whole number, got {marker_seconds!r}")
        if marker_seconds <= 0:
            raise ValueError(f"marker_seconds must be above zero, got {marker_seconds}")
        self.client = client
        self.prefix = prefix
        self.marker_seconds = marker_seconds
        self._record = RegisteredScript(client, _RECORD_SCRIPT)

    # -- keys --------------------------------------------------------------------------------

    def key(self, game: str) -> str:
        """The sorted set of ``game``.

        >>> import fakeredis
        >>> Leaderboard(fakeredis.FakeRedis()).key("hunzhan")
        'paiju:leaderboard:{hunzhan}'
        """
        return f"{self.prefix}:{{{_check_game(game)}}}"

    def _built_key(self, game: str) -> str:
        return f"{self.key(game)}:built"

    def _marker_key(self, game: str, hand_id: str) -> str:
        return f"{self.key(game)}:counted:{hand_id}"

    # -- writing -----------------------------------------------------------------------------

    def record(self, settlement: Settlement, house: int) -> Counted:
        """Count a hand's nets, the house's left out; once per hand however often called."""
        keys, args = self._record_call(settlement, house)
        return _counted(self._record(keys=keys, args=args))

    def queue_record(self, pipe: Any, settlement: Settlement, house: int) -> Callable[[Any], Counted]:
        """:meth:`record` into ``pipe`` (a pipeline of this board's client, executed by the
        caller without raising on errors); the function returned takes the reply and answers
        what :meth:`record` would. A Redis that lost the script (a restart) is sent it then,
        and the hand counted in a round trip of its own."""
        reply_of = queue_script(pipe, self._record, *self._record_call(settlement, house))
        return lambda reply: _counted(reply_of(reply))

    def _record_call(self, settlement: Settlement, house: int) -> tuple[list[str], list[Any]]:
        nets: dict[int, int] = {}
        for line in settlement.lines:
            if line.account != house:
                nets[line.account] = nets.get(line.account, 0) + line.amount
        args: list[Any] = [self.marker_seconds]
        for account, net in sorted(nets.items()):
            args += [str(account), net]
        keys = [
            self.key(settlement.game),
            self._built_key(settlement.game),
            self._marker_key(settlement.game, settlement.hand_id),
        ]
        return keys, args

    def rebuild(self, game: str, ledger: LedgerTop) -> int:
        """Replace the board of ``game`` with the ledger's figures; the accounts on it.

        Exact when no settlement of the game is applied meanwhile; one that lands between the
        ledger read and the write is missing until the next rebuild.
        """
        rows = ledger.top(game, REBUILD_ROWS_MAX)
        # PostgreSQL sums come back as Decimal; coins are whole numbers.
        self.replace(game, ((row.account, int(row.net)) for row in rows))
        return len(rows)

    def replace(self, game: str, nets: Iterable[tuple[int, int]]) -> None:
        """Make the board of ``game`` exactly ``nets`` (account, net coins) and mark it built."""
        mapping = {str(account): int(net) for account, net in nets}
        pipe = self.client.pipeline(transaction=True)
        pipe.delete(self.key(game))
        if mapping:
            pipe.zadd(self.key(game), mapping)
        pipe.set(self._built_key(game), "1")
        pipe.execute()

    def mark_built(self, game: str) -> None:
        """Declare the board of ``game`` whole as it is (a game nobody has played yet)."""
        self.client.set(self._built_key(game), "1")

    def ensure(self, game: str, ledger: LedgerTop) -> bool:
        """Rebuild the board of ``game`` if it is not built; True if it had to."""
        if self.is_built(game):
            return False
        self.rebuild(game, ledger)
        return True

    def drop(self, game: str) -> None:
        """Forget the board of ``game`` (its hand markers stay until they expire)."""
        self.client.delete(self.key(game), self._built_key(game))

    # -- reading -----------------------------------------------------------------------------

    def is_built(self, game: str) -> bool:
        """Whether the board of ``game`` is whole (built, and not lost since)."""
        return bool(self.client.exists(self._built_key(game)))

    def top(self, game: str, n: int) -> list[tuple[int, int]]:
        """The ``n`` best (account, net coins) of ``game``, best first."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"a leaderboard size is a whole number of zero or more, got {n!r}")
        if n == 0:
            return []
        found = self.client.zrevrange(self.key(game), 0, n - 1, withscores=True)
        return [(int(_text(member)), int(score)) for member, score in found]

    def nets(self, game: str) -> dict[int, int]:
        """Every account on the board of ``game`` with its net coins."""
        found = self.client.zrange(self.key(game), 0, -1, withscores=True)
        return {int(_text(member)): int(score) for member, score in found}

    def standing(self, game: str, account: int) -> tuple[int, int] | None:
        """``(rank, net)`` of ``account`` in ``game`` (equal nets share a rank), or ``None``
        when it is not on the board."""
        score = self.client.zscore(self.key(game), str(account))
        if score is None:
            return None
        better = self.client.zcount(self.key(game), f"({score}", "+inf")
        return int(better) + 1, int(score)


def _counted(outcome: Any) -> Counted:
    return {1: Counted.NOW, 0: Counted.BEFORE}.get(int(outcome), Counted.NOT_BUILT)


def _check_game(game: object) -> str:
    if not isinstance(game, str) or not game or any(c in game for c in "{}: "):
        raise ValueError(
            f"a game name is non-empty text without braces, colons or spaces: {game!r}"
        )
    return game


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw
