"""The table domain: seats, hands, moves, timers and presence on records in the TableStore.

The servicers of the lobby and table services are thin layers over :class:`Tables`; it holds no
game rules — it drives games only through :mod:`paiju.games.registry` and the engine contract
(:class:`~paiju.games.engine.HandState`). It is assembled from one part per concept, each a
module of its own:

- :mod:`~paiju.table.commits`: reading a table, and changing it by one compare-and-set, retried;
- :mod:`~paiju.table.seating_flow`: sitting, standing, pressing start, the ready kick;
- :mod:`~paiju.table.hand_life`: a hand's start (holds, deal), a crashed start's recovery, its end;
- :mod:`~paiju.table.moves`: players' moves, the turn timer, the game's system steps;
- :mod:`~paiju.table.presence_flow`: away, back, and gone when the reconnect window closes;
- :mod:`~paiju.table.ending`: an operator's end of a stuck table (its hand voided, its seats cleared);
- :mod:`~paiju.table.deadline_names`: the deadlines they set, and :meth:`Tables.expire`, which
  dispatches each one that falls due.

Deadlines carry a *stamp* of the state they were set for (in the store's ``version_set_for``):
the turn timer the record's ``turn_stamp`` (a new one whenever the seat to act changes, so a
look by another player leaves the timer running), the ready kick and a delayed start its
``seating_stamp``, a reconnect window the seat's ``away_stamp``. An expiry whose stamp no longer
matches is a no-op, so a deadline fired twice, or late, changes nothing.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable

from paiju.table.commits import Outcome
from paiju.table.deadline_names import (
    READY_KICK_DEADLINE,
    RECONNECT_PREFIX,
    START_DEADLINE,
    STARTING_PREFIX,
    SYSTEM_DEADLINE,
    TURN_DEADLINE,
    Timers,
)
from paiju.table.ending import TableEnding
from paiju.table.in_turn import TableTurns
from paiju.table.ports import CoinsBoard, NoCoinsBoard, WalletPort
from paiju.table.presence_flow import TablePresence
from paiju.table.record import RecordCodec, TableRecord
from paiju.table.seating import SeatDirectory
from paiju.table.store import TableStore
from paiju.table.store.store import STATES_REMEMBERED
from paiju.table.suspended import SuspendedAccounts

DEFAULT_TIMERS = Timers()


class Tables(TablePresence, TableEnding):
    """Tables on one store. ``wallet`` places holds; ``coins_board`` lets presses of start through
    without the ledger (without one, each asks it); ``clock_ms`` and ``seeds`` are injectable."""

    def __init__(
        self,
        store: TableStore,
        wallet: WalletPort,
        timers: Timers = DEFAULT_TIMERS,
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        seeds: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        randbelow: Callable[[int], int] = secrets.randbelow,
        coins_board: CoinsBoard | None = None,
    ) -> None:
        self.store = store
        self.wallet = wallet
        self.timers = timers
        self.clock_ms = clock_ms
        self.seeds = seeds
        self.randbelow = randbelow
        self.records = RecordCodec(STATES_REMEMBERED)
        """Records to stored bytes and back: what this process wrote is read back uninflated."""
        self.directory = SeatDirectory(store.client, store.prefix)
        self.suspended = SuspendedAccounts(store.client, store.prefix)
        """Accounts an operator suspended: they are refused a seat."""
        self.coins: CoinsBoard = coins_board or NoCoinsBoard()
        """The ledger's last word on players' available coins: a press answered on the event
        loop trusts it to let a player through, never to refuse one, and a hand's start deals
        from it with holds that the ledger refuses unless the coins are exactly its own."""
        self._turns = TableTurns()
        self.commit_starting: list[Callable[[str], None]] = []
        """Called with the table's id before each commit this process makes."""
        self.commit_listeners: list[Callable[[str, Outcome | None], None]] = []
        """Called with the table's id and the outcome after each commit this process makes, or
        None when it failed (the stream hub hands the outcome to the table's watchers here
        without reading it back)."""

    def expire(self, table_id: str, name: str, stamp: int) -> Outcome | None:
        """A deadline fell due: the move it stands for, or None when its state has moved on."""
        if name.startswith(STARTING_PREFIX):
            return self._recover_start(table_id, name, stamp)

        def change(version: int, record: TableRecord) -> Outcome | None:
            if name == TURN_DEADLINE:
                return self._turn_timeout(table_id, version, record, stamp)
            if name == START_DEADLINE:
                return self._delayed_start(table_id, version, record, stamp)
            if name == SYSTEM_DEADLINE:
                return self._system_step(table_id, version, record, stamp)
            if name == READY_KICK_DEADLINE:
                return self._ready_kick(table_id, version, record, stamp)
            if name.startswith(RECONNECT_PREFIX):
                return self._reconnect_window_closed(table_id, version, record, int(name[len(RECONNECT_PREFIX):]), stamp)
            return None

        return self._retrying(table_id, change)
