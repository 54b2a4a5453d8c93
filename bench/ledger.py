"""Ledger benchmark: the wallet's per-hand work — available coins, holds, settlements.

Per hand the platform asks the wallet for each player's available coins, holds the hand
(``Wallet.hold_hand``) and, once the hand ends, settles it through the outbox relay
(``relay_outbox`` with a ``Settler``). This measures each of those on SQLite (a temporary file)
and PostgreSQL (a schema of this run, dropped afterwards), for 3-player 炸金花 hands as the bots
of bench/bot_tables.py play them, and prints hands/s and this process's CPU µs per hand (for
PostgreSQL the server's own CPU is not counted). Settlements are measured one relay pass per
hand ("single", what a quiet server does) and one pass over ``--batch`` pending hands
("batched", what a busy server's relay finds).

Run: ``.venv/bin/python bench/ledger.py`` (``--hands 600 --batch 100``, ``--no-postgres`` to
skip PostgreSQL).
"""

from __future__ import annotations

import argparse
import json
import secrets
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

from paiju.wallet import PasswordHasher, Wallet
from paiju.wallet.relay import Settler, relay_outbox
from runs import ledger

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
PLAYERS_PER_HAND = 3
ACCOUNTS = 60
STAKE = 200
FEE = 6
GRANT = 10**12  # nobody runs out of coins, however many hands the bench plays


@dataclass(frozen=True, slots=True)
class PendingEntry:
    """An outbox entry as :func:`relay_outbox` reads it."""

    table_id: str
    key: str
    payload: bytes


class ListOutbox:
    """The relay's outbox port over a list: what a table store's outbox holds, minus Redis."""

    def __init__(self, entries: list[PendingEntry]) -> None:
        self.pending = {(entry.table_id, entry.key): entry for entry in entries}

    def outbox_pending(self, limit: int = 100, table_ids: Collection[str] | None = None) -> list[PendingEntry]:
        return [entry for entry in self.pending.values() if table_ids is None or entry.table_id in table_ids][:limit]

    def outbox_ack(self, table_id: str, key: str) -> bool:
        return self.pending.pop((table_id, key), None) is not None


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured phase: how many hands, in how much wall time and CPU time."""

    hands: int
    wall: float
    cpu: float

    def line(self, label: str) -> str:
        return (f"  {label:<34}: {self.hands / self.wall:9,.0f} hands/s"
                f"  {self.cpu / self.hands * 1e6:8,.0f} µs CPU/hand")


def measure(work: Callable[[], int]) -> Figure:
    """Run ``work`` (which returns how many hands it did) and time it."""
    wall, cpu = time.perf_counter(), time.process_time()
    hands = work()
    return Figure(hands, time.perf_counter() - wall, time.process_time() - cpu)


def hand_players(accounts: list[int], number: int) -> list[int]:
    """The players of hand ``number``: consecutive accounts, so hands share players."""
    start = number * PLAYERS_PER_HAND % len(accounts)
    return [accounts[(start + seat) % len(accounts)] for seat in range(PLAYERS_PER_HAND)]


def settlement_payload(hand_id: str, table_id: str, players: list[int]) -> bytes:
    """The outbox payload of a hand where everyone staked ``STAKE`` and the first player won."""
    winner = players[0]
    lines: list[list[object]] = [[str(player), -STAKE, "stake"] for player in players]
    lines += [[str(winner), STAKE * len(players), "pot"], [str(winner), -FEE, "fee"]]
    return json.dumps({"hand_id": hand_id, "table_id": table_id, "game": "zhajinhua",
                       "lines": lines, "fee": FEE}).encode()


def bench_backend(url: str, hands: int, batch: int) -> None:
    wallet = Wallet(url, starting_grant=GRANT, password_hasher=PasswordHasher(n=2**4))
    wallet.migrate()
    accounts = [wallet.register(f"bench{number}", "password-123") for number in range(ACCOUNTS)]
    settler = Settler(wallet)
    run = secrets.token_hex(3)
    hand_ids = [f"t{number % 50}-{number}-{run}" for number in range(2 * hands)]
    wallet.available(accounts[0])  # warm the pool and the statement cache

    def ask_available() -> int:
        for number in range(hands):
            for account in hand_players(accounts, number):
                wallet.available(account)
        return hands

    def ask_available_many() -> int:
        for number in range(hands):
            wallet.available_many(hand_players(accounts, number))
        return hands

    def hold() -> int:
        for number, hand_id in enumerate(hand_ids):
            wallet.hold_hand(hand_id, {player: STAKE for player in hand_players(accounts, number)})
        return len(hand_ids)

    entries = [
        PendingEntry(hand_id.split("-")[0], f"settle:{hand_id}",
                     settlement_payload(hand_id, hand_id.split("-")[0], hand_players(accounts, number)))
        for number, hand_id in enumerate(hand_ids)
    ]

    def settle_single() -> int:
        outbox = ListOutbox(entries[:hands])
        while outbox.pending:
            relay_outbox(outbox, settler, limit=1)
        return hands

    def settle_batched() -> int:
        outbox = ListOutbox(entries[hands:])
        while outbox.pending:
            relay_outbox(outbox, settler, limit=batch)
        return hands

    print(measure(ask_available).line(f"available ×{PLAYERS_PER_HAND} (one per player)"))
    if hasattr(wallet, "available_many"):  # absent before the wallet had it
        print(measure(ask_available_many).line(f"available_many of {PLAYERS_PER_HAND}"))
    print(measure(hold).line("hold_hand"))
    print(measure(settle_single).line("settle, one relay pass per hand"))
    print(measure(settle_batched).line(f"settle, relay passes of {batch}"))
    if wallet.total_coins() != wallet.grants_total() or wallet.check_balances():
        raise SystemExit("the ledger does not add up after the bench")
    wallet.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=600, help="hands per figure")
    parser.add_argument("--batch", type=int, default=100, help="pending hands per batched relay pass")
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--no-postgres", action="store_true", help="measure SQLite only")
    args = parser.parse_args()
    print(f"ledger, {PLAYERS_PER_HAND}-player hands, {args.hands} hands per figure")
    run = f"ledger_{secrets.token_hex(4)}"
    print("SQLite (temporary file, WAL):")
    with ledger(None, run) as url:
        bench_backend(url, args.hands, args.batch)
    if not args.no_postgres:
        print("PostgreSQL (this process's CPU only):")
        with ledger(args.postgres_url, run) as url:
            bench_backend(url, args.hands, args.batch)


if __name__ == "__main__":
    main()
