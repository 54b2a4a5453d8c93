"""The table's deadlines: their names, the timers they run on, and the plan of the changes one
commit makes to them.

Deadlines carry a *stamp* of the state they were set for (in the store's ``version_set_for``):
the turn timer the record's ``turn_stamp`` (a new one whenever the seat to act changes, so a
look by another player leaves the timer running), the ready kick and a delayed start its
``seating_stamp``, a reconnect window the seat's ``away_stamp``, a start's mark the version the
start was prepared on. An expiry whose stamp no longer matches is a no-op, so a deadline fired
twice, or late, changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from paiju.table.store import Deadline

TURN_DEADLINE = "turn"
READY_KICK_DEADLINE = "ready_kick"
START_DEADLINE = "start"
SYSTEM_DEADLINE = "system"
RECONNECT_PREFIX = "reconnect:"
STARTING_PREFIX = "starting:"
"""A mark set before a hand's holds, cleared by the commit that deals it: if the starter dies
between the two, the mark falls due and any replica releases the holds and deals again."""
MAX_MARK_LENGTH = 128
"""The longest deadline name the store takes."""
START_RECOVERY_MS = 3_000
"""How long a start may take from its holds to its deal's commit before it counts as crashed
(a start that is merely slow loses its compare-and-set to the recovery and gives its holds back)."""
START_RETRY_MS = 250


@dataclass(frozen=True, slots=True)
class Timers:
    turn_ms: int = 20_000
    ready_kick_ms: int = 20_000
    reconnect_ms: int = 90_000


@dataclass
class DeadlinePlan:
    """The deadline changes one commit makes."""

    set: list[tuple[str, int, int]] = field(default_factory=list)
    clear: list[str] = field(default_factory=list)

    def put(self, name: str, due_ms: int, stamp: int) -> None:
        self.set.append((name, due_ms, stamp))

    def drop(self, *names: str) -> None:
        self.clear.extend(names)


def named(deadlines: list[Deadline], name: str) -> Deadline | None:
    return next((deadline for deadline in deadlines if deadline.name == name), None)


def starting_mark(table_id: str, hand_id: str, accounts: list[str]) -> str:
    """The name of the deadline that guards the start of ``hand_id`` dealing ``accounts`` in (see
    :data:`STARTING_PREFIX`); the accounts are left out when they would make it too long.

    >>> starting_mark("zhajinhua-free-03", "zhajinhua-free-03-7-5c0ffee5", ["1001", "1002"])
    'starting:7-5c0ffee5:1001,1002'
    """
    mark = f"{STARTING_PREFIX}{hand_id[len(table_id) + 1:]}"
    with_accounts = f"{mark}:{','.join(accounts)}"
    return with_accounts if len(with_accounts) <= MAX_MARK_LENGTH else mark


def marked_start(table_id: str, mark: str) -> tuple[str, list[str]]:
    """The hand a start's mark (:func:`starting_mark`) guards, and the accounts it deals in
    (none when the mark left them out).

    >>> marked_start("zhajinhua-free-03", "starting:7-5c0ffee5:1001,1002")
    ('zhajinhua-free-03-7-5c0ffee5', ['1001', '1002'])
    """
    hand_part, _, dealt = mark[len(STARTING_PREFIX):].partition(":")
    return f"{table_id}-{hand_part}", [account for account in dealt.split(",") if account]


def reconnect_deadline(seat: int) -> str:
    return f"{RECONNECT_PREFIX}{seat}"

