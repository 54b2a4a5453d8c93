"""kill -9 of a server process while its tables play: the process left plays every table on.

There is no lease: any process may act on any table; each remembers the state it last committed
and commits by compare-and-set (docs/table-path.md). Two processes serve the whole platform on
one port, on real Redis and PostgreSQL. The first group of players connects while only the first
process listens, so all their calls go to it; the others connect once both listen, and the kernel
spreads them. Every table seats players of both groups. Once every table has ended a hand, the
first process is killed with SIGKILL. Then every table plays on, on the process left (two more
hands each), and nobody loses a seat; once play winds down, the ledger balances to its grants,
every hand each table ended is settled exactly once, no coin is held and no table is stuck.

It once found tables stopped for good with two processes, kill or no kill: a process that had
last committed at a table long ago judged its start on what it remembered and dropped it.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import grpc
import psycopg
import pytest
import redis
import sqlalchemy as sa

from paiju.client.bots import sensible_bot, trick_bot
from paiju.client.play import BotStats, play_bot
from paiju.client.sdk import PaijuClient, PaijuError
from paiju.table.record import TableRecord
from paiju.table.store import TableStore
from paiju.table.tables import Tables
from paiju.wallet import PasswordHasher, Wallet
from tests.e2e.shared_port import SharedPortServers
from tests.ledger_checks import held_coins, ledger_faults, settled_hand_numbers, settlement_faults
from tests.patience import PATIENCE_SECONDS, TIMER_SECONDS, wait_until

GRANT = 1_000_000  # nobody goes broke
PASSWORD = "a long enough takeover password"
HANDS_BEFORE = 1
HANDS_AFTER = 2
HOLD_SWEEP_SECONDS = 1
QUICK_HUNZHAN = {"deal_interval": 0.005, "declare_window": 0.3, "turn_seconds": TIMER_SECONDS}
"""A quick deal for the test; the lobby's rooms keep the spec's 0.25 s and 5 s."""
TABLES = (
    # (table, game, tier, bot, players of the first process only, players spread by the kernel)
    ("zhajinhua-free-01", "zhajinhua", "free", sensible_bot, 2, 1),
    ("zhajinhua-free-02", "zhajinhua", "free", sensible_bot, 2, 1),
    ("hunzhan-takeover", "hunzhan", "stake10", trick_bot, 2, 2),
)
EVERY_HAND_MOVES_COINS = {"zhajinhua": True, "hunzhan": False}
"""Every 炸金花 hand settles (its antes); a 混战 hand where all four take 60 points moves no coin."""
LOOK_SECONDS = 0.1
"""How often the test looks at the tables and the ledger while it waits."""
PLAY_SECONDS = 3 * PATIENCE_SECONDS
"""How long the tables get for the hands each phase waits for (a loaded machine is slow)."""


@dataclass
class Player:
    """A bot that keeps its seat through the kill: a call that fails (its server died under it)
    is made again on the same client, whose connection then finds the process left."""

    client: PaijuClient
    table: str
    game: str
    tier: str
    bot: Callable
    stats: BotStats = field(default_factory=BotStats)
    errors: Counter = field(default_factory=Counter)
    seat_losses: list[str] = field(default_factory=list)
    wound_down: threading.Event = field(default_factory=threading.Event)
    """Set once it has seen ``winding_down`` between hands: no Ready of its is on its way any more."""

    def play(self, winding_down: threading.Event, stop: threading.Event) -> None:
        rng = random.Random(self.client.username)

        def may_press_start(_view: dict) -> bool:
            if winding_down.is_set():
                self.wound_down.set()
                return False
            return True

        while not stop.is_set():
            try:
                play_bot(self.client, self.game, self.tier, self.bot, hands=10**9, stop=stop, rng=rng,
                         room_id=self.table, stats=self.stats, press_start_when=may_press_start)
                if not stop.is_set():
                    self.seat_losses.append(f"{self.client.username} stood up at {self.table}")
            except (PaijuError, grpc.RpcError, ValueError) as error:
                what = f"{error.status.name}: {error.reason[:60]}" if isinstance(error, PaijuError) else repr(error)[:80]
                self.errors[what] += 1
                stop.wait(0.2)


@dataclass
class World:
    servers: SharedPortServers
    store: TableStore
    wallet: Wallet

    def record(self, table: str) -> TableRecord:
        snapshot = self.store.load(table)
        assert snapshot is not None, f"table {table} is gone"
        return TableRecord.from_bytes(snapshot.state)

    def hands_played(self) -> dict[str, int]:
        return {table: self.record(table).hands_played for table, *_ in TABLES}


@pytest.fixture
def world(redis_url: str, database_url: str) -> Iterator[World]:
    run = secrets.token_hex(4)
    prefix, schema = f"takeover-{run}", f"takeover_{run}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    ledger_url = sa.make_url(database_url).update_query_dict(
        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
    # Product timers that no phase waits for: a player slowed by a busy machine is never timed out.
    environment = {"REDIS_URL": redis_url, "DATABASE_URL": ledger_url, "PAIJU_SECRET": secrets.token_hex(32),
                   "PAIJU_REDIS_PREFIX": prefix, "PAIJU_STARTING_GRANT": str(GRANT), "PAIJU_RELAY_SECONDS": "0.2",
                   "PAIJU_TURN_SECONDS": str(TIMER_SECONDS), "PAIJU_READY_KICK_SECONDS": str(TIMER_SECONDS),
                   "PAIJU_RECONNECT_SECONDS": str(TIMER_SECONDS), "PAIJU_HOLD_SWEEP_SECONDS": str(HOLD_SWEEP_SECONDS),
                   "PAIJU_METRICS_PORT": "0", "PAIJU_WEB_PORT": "0"}
    servers = SharedPortServers(environment, rooms_per_tier=2)
    client = redis.Redis.from_url(redis_url)
    wallet = Wallet(ledger_url, starting_grant=GRANT, password_hasher=PasswordHasher(n=2**4))
    try:
        yield World(servers, TableStore(client, prefix=prefix), wallet)
    finally:
        servers.stop_all()
        wallet.close()
        stale = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if stale:
            client.delete(*stale)
        client.close()
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def connect_players(world: World, count: int) -> list[PaijuClient]:
    """``count`` new players, each on connections of its own, made now (grpc connects lazily:
    the balance asked for makes the connection the player's later calls ride)."""
    clients = []
    for _ in range(count):
        name = f"tk{secrets.token_hex(4)}"
        world.wallet.register(name, PASSWORD)
        client = PaijuClient.connect(world.servers.address, name, PASSWORD, own_connection=True)
        client.balance()
        clients.append(client)
    return clients


def test_kill_9_of_a_server_process_leaves_every_table_playing_and_every_coin_accounted_for(world: World) -> None:
    began = time.monotonic()
    first = world.servers.start()
    Tables(world.store, wallet=None).open("hunzhan-takeover", "hunzhan", "stake10", rules=QUICK_HUNZHAN)  # type: ignore[arg-type]
    only_first = iter(connect_players(world, sum(row[4] for row in TABLES)))
    world.servers.start()  # the second process: the kernel spreads the connections made from now on
    spread = iter(connect_players(world, sum(row[5] for row in TABLES)))
    players = [Player(next(group), table, game, tier, bot)
               for table, game, tier, bot, on_first, on_either in TABLES
               for group in [only_first] * on_first + [spread] * on_either]
    winding_down, stop = threading.Event(), threading.Event()
    threads = [threading.Thread(target=player.play, args=(winding_down, stop), daemon=True) for player in players]
    started_at = time.monotonic()
    for thread in threads:
        thread.start()
    try:
        wait_until(f"{HANDS_BEFORE} hand(s) at every table, played through both processes",
                   lambda: min(world.hands_played().values()) >= HANDS_BEFORE and first.acts_served > 0,
                   seconds=PLAY_SECONDS, poll_seconds=LOOK_SECONDS, explain=lambda: play_report(world, players))
        at_kill = world.hands_played()
        acts_of_first = first.acts_served
        killed_at = time.monotonic()
        world.servers.kill(first)

        wait_until(f"{HANDS_AFTER} more hands at every table after the kill",
                   lambda: all(world.hands_played()[table] >= at_kill[table] + HANDS_AFTER for table in at_kill),
                   seconds=PLAY_SECONDS, poll_seconds=LOOK_SECONDS,
                   explain=lambda: f"hands at the kill {at_kill}\n{play_report(world, players)}")
        played_on_at = time.monotonic()

        # Nobody presses start any more; the hands in play end. Quiet once every player has
        # seen that between hands (no Ready of theirs is on its way), no table has a hand in play
        # or a start due, every settlement is applied and the sweep released what a start cut
        # short by the kill held.
        winding_down.set()
        wait_until("every table to wind down, every hand settled and every hold released",
                   lambda: all(player.wound_down.is_set() for player in players) and quiet(world),
                   seconds=PLAY_SECONDS, poll_seconds=LOOK_SECONDS, explain=lambda: play_report(world, players))
        quiet_at = time.monotonic()
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=PATIENCE_SECONDS)
        for player in players:
            player.client.close()
    assert not any(thread.is_alive() for thread in threads), "bots still playing after the stop"

    hands = world.hands_played()
    settled = settled_hand_numbers(world.wallet)
    print(f"\ntakeover: {len(players)} players at {len(TABLES)} tables on 2 processes; the first, killed, "
          f"had served {acts_of_first} moves; hands at the kill {at_kill}, at the end {hands}\n"
          f"  start {started_at - began:.1f} s, to the kill {killed_at - started_at:.1f} s, "
          f"{HANDS_AFTER} more hands everywhere {played_on_at - killed_at:.1f} s, "
          f"wind-down {quiet_at - played_on_at:.1f} s\n"
          f"  calls refused or cut (most frequent): {errors_of(players).most_common(4)}")
    assert acts_of_first > 0  # the kill cut off play, not an idle process
    assert not [loss for player in players for loss in player.seat_losses]
    assert ledger_faults(world.wallet) == []
    faults = {table: settlement_faults(settled.get(table, Counter()), hands[table], EVERY_HAND_MOVES_COINS[game])
              for table, game, *_ in TABLES}
    assert not any(faults.values()), faults
    assert all(world.record(table).hand is None for table in hands)


def quiet(world: World) -> bool:
    records = [world.record(table) for table, *_ in TABLES]
    return (all(record.hand is None and not record.can_start() for record in records)
            and not world.store.outbox_pending() and held_coins(world.wallet) == 0)


def errors_of(players: list[Player]) -> Counter:
    return sum((player.errors for player in players), Counter())


def play_report(world: World, players: list[Player]) -> str:
    lines = [f"{player.client.username} at {player.table}: wound down {player.wound_down.is_set()}, "
             f"{player.stats.hands} hands" for player in players]
    for table, *_ in TABLES:
        record = world.record(table)
        lines.append(f"{table}: hand {record.hand.hand_id if record.hand else None}, can start {record.can_start()}, "
                     f"seats {[s and (s.ready, s.connected) for s in record.seats]}")
    lines.append(f"outbox {world.store.outbox_pending()}, held {held_coins(world.wallet)}, errors {errors_of(players)}")
    return "\n".join(lines)
