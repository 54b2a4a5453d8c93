"""End to end over real gRPC: clients register, sit, play whole hands, and the ledger settles."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import random
import secrets
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from paiju.client.bots import random_bot, sensible_bot
from paiju.client.play import play_bot
from paiju.client.sdk import IllegalMove, PaijuClient, PaijuError, StaleView
from paiju.proto.v1 import lobby_pb2, lobby_pb2_grpc, table_pb2, table_pb2_grpc
from paiju.rpc.server import start_from_settings
from paiju.table.fanout import after as is_after
from paiju.table.store.records import parse_stream_id
from tests.e2e.shared_port import finished_calls
from tests.games.zhajinhua_playouts import cards_in
from tests.patience import PATIENCE_SECONDS, wait_until

PLAYING_SECONDS = 10 * PATIENCE_SECONDS
"""How long bots get to play their hands: ample for a machine at a crawl."""


def wait_for(what: str, done: Callable[[], bool], deployment=None) -> None:
    def worker_log() -> str:
        return deployment.worker_log.read_text()[-3000:] if deployment and deployment.worker_log else ""

    # Conditions here ask the server through players' accounts: polled every 10 ms, a wait of
    # a few seconds ran past the server's 50 calls a second per account, and the next call of
    # the test was refused.
    wait_until(what, done, explain=worker_log, poll_seconds=0.1)


def join_all(threads: list[threading.Thread]) -> None:
    """Wait for the bots' threads to finish their hands; fail if any is still playing."""
    for thread in threads:
        thread.join(timeout=PLAYING_SECONDS)
    assert not any(thread.is_alive() for thread in threads), "bots still playing"


def new_clients(deployment, count: int) -> list[PaijuClient]:
    tag = secrets.token_hex(3)
    return [PaijuClient.connect(deployment.address, f"p{tag}{i}", "a long enough password", register=True) for i in range(count)]


def seated_clients(deployment, room: str, count: int = 3) -> tuple[list[PaijuClient], dict[str, int]]:
    """``count`` new players sat at ``room``, and their seats by account."""
    clients = new_clients(deployment, count)
    for client in clients:
        client.sit(room)
    return clients, {c.account_id: c.view(room)["seat"] for c in clients}


def move_at_random(clients: list[PaijuClient], seats: dict[str, int], room: str, seat: int, rng: random.Random) -> None:
    """The player at ``seat`` makes a random legal move (someone moving first is no failure)."""
    actor = next(c for c in clients if seats[c.account_id] == seat)
    theirs = actor.view(room)
    try:
        actor.act(room, rng.choice(theirs["hand"]["state"]["legal_actions"]), theirs["version"])
    except StaleView:
        pass


def everyone_settled(deployment) -> Callable[[], bool]:
    return lambda: not deployment.platform.store.outbox_pending()


def hands_until_my_turn(deployment, clients: list[PaijuClient], seats: dict[str, int], room: str, me: PaijuClient,
                        on_my_turn: Callable[[dict], bool], rng: random.Random,
                        after_hand: Callable[[dict], None] = lambda view: None) -> bool:
    """Hands of ``room`` played to their end, up to five, until one brought ``me`` a turn:
    ``on_my_turn(view)`` is called on each, and answers whether it made the move (else a random
    one is made, as for every other seat). ``after_hand`` gets the last view of each hand. Whether
    a turn came."""
    my_seat = seats[me.account_id]
    for _ in range(5):  # a hand may end before my turn comes; the next one brings it
        wait_for("the last settlement of the room", everyone_settled(deployment), deployment)
        for client in clients:
            client.ready(room)
        turned = False
        while (view := me.view(room))["hand"] is not None:
            state = view["hand"]["state"]
            seat = view["hand"]["seats"][state["to_act"]]
            moved = False
            if seat == my_seat:
                turned = True
                moved = on_my_turn(view)
            if not moved:
                move_at_random(clients, seats, room, seat, rng)
        after_hand(view)
        if turned:
            return True
    return False


@contextlib.contextmanager
def served_at(deployment, server: str) -> Iterator[str]:
    """The address of the deployment's platform served by the ``server`` kind (``loop`` or
    ``threads``: grpc's thread-pool server, which serves no Play stream)."""
    if server == "loop":
        yield deployment.address
        return
    settings = dataclasses.replace(deployment.platform.settings, grpc_server=server)
    running = start_from_settings(settings, deployment.platform.bindings(), port=0)
    try:
        yield running.address
    finally:
        running.stop(grace=0.5)


@pytest.mark.parametrize(("server", "moves_by"), [("loop", "Play.move"), ("threads", "Act")])
def test_bots_play_whole_hands_and_every_coin_is_accounted_for(deployment, server, moves_by):
    # On the loop the bots move and press start on their Play streams; a thread-pool server
    # answers Play UNIMPLEMENTED, and they play through Act and Ready calls instead.
    room = "zhajinhua-free-01" if server == "loop" else "zhajinhua-free-05"
    with served_at(deployment, server) as address:
        clients, _ = seated_clients(_Address(address), room)
        moves_before = {method: finished_calls(method) for method in ("Play.move", "Act")}
        stop = threading.Event()
        results, errors = [], []

        def run(client, bot, seed):
            try:
                results.append(play_bot(client, "zhajinhua", "free", bot, hands=4, stop=stop,
                                        rng=random.Random(seed), room_id=room))
            except Exception as error:  # noqa: BLE001 - reported below, with the others
                errors.append(error)

        # All seated before any bot presses start: two ready players start a hand, and nobody may
        # sit down while one is being played.
        threads = [threading.Thread(target=run, args=(c, b, i)) for i, (c, b) in
                   enumerate(zip(clients, [sensible_bot, random_bot, sensible_bot]))]
        for thread in threads:
            thread.start()
        join_all(threads)
        stop.set()
        assert not errors, errors
        assert all(r.hands >= 4 for r in results), results
        assert not any(r.refused for r in results), [r.refused for r in results]
        moves = {method: finished_calls(method) - before for method, before in moves_before.items()}
        other = "Act" if moves_by == "Play.move" else "Play.move"
        assert moves[moves_by] >= sum(r.actions for r in results) and moves[other] == 0, moves
        wait_for("the settlements", everyone_settled(deployment), deployment)
        wallet = deployment.platform.wallet
        assert wallet.total_coins() == wallet.grants_total()
        balances = [c.balance() for c in clients]
        assert sum(b.total for b in balances) == 3 * 20_000
        assert all(b.held == 0 for b in balances)
        board = clients[0].leaderboard("zhajinhua", 10)
        assert {row.account_id for row in board.rows} >= {c.account_id for c in clients if c.balance().total != 20_000}
        for client in clients:
            client.stand(room)
            client.close()


@dataclasses.dataclass(frozen=True)
class _Address:
    """Stands in for a running server where only its address is asked for."""

    address: str


def start_hand(deployment, clients, room):
    for client in clients:
        client.sit(room)
    wait_for("the last settlement of the room", everyone_settled(deployment), deployment)
    first, *others = clients
    # Ready's reply is the room as that change committed it: the caller ready, the others not yet.
    answer = first.lobby.Ready(lobby_pb2.ReadyRequest(room_id=room), timeout=PATIENCE_SECONDS)
    assert {seat.account_id: seat.ready for seat in answer.room.seats} == {
        client.account_id: client is first for client in clients}
    assert not answer.hand_started and 0 < answer.room.version <= first.view(room)["version"]
    for client in others:
        client.ready(room)
    wait_for("the hand to start", lambda: clients[0].view(room)["hand"] is not None)
    return clients[0].view(room)


def test_bad_calls_are_refused_and_change_nothing(deployment):
    clients = new_clients(deployment, 2)
    room = "zhajinhua-free-02"
    view = start_hand(deployment, clients, room)
    version = view["version"]
    hand = view["hand"]
    to_act = hand["seats"][hand["state"]["to_act"]]
    actor = next(c for c in clients if c.view(room)["seat"] == to_act)
    waiting = next(c for c in clients if c is not actor)

    with pytest.raises(IllegalMove) as out_of_turn:
        waiting.act(room, "call", version)
    assert out_of_turn.value.error_code == "not_your_turn"
    with pytest.raises(IllegalMove) as above_cap:
        actor.act(room, "raise 1000000", version)
    assert above_cap.value.error_code == "raise_above_cap"
    with pytest.raises(PaijuError) as malformed:
        actor.act(room, "dance a jig", version)
    assert malformed.value.status == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(StaleView) as stale:
        actor.act(room, "call", version - 1)
    assert stale.value.current_version == version

    anonymous = grpc.insecure_channel(deployment.address)
    with pytest.raises(grpc.RpcError) as unauthenticated:
        table_pb2_grpc.TableServiceStub(anonymous).Act(
            table_pb2.ActRequest(table_id=room, expected_version=version, action="call"))
    assert unauthenticated.value.code() == grpc.StatusCode.UNAUTHENTICATED
    with pytest.raises(grpc.RpcError) as no_lobby:
        lobby_pb2_grpc.LobbyServiceStub(anonymous).Sit(lobby_pb2.SitRequest(room_id=room))
    assert no_lobby.value.code() == grpc.StatusCode.UNAUTHENTICATED
    anonymous.close()

    outsider = new_clients(deployment, 1)[0]
    with pytest.raises(PaijuError) as foreign:
        outsider.act(room, "call", version)
    assert foreign.value.status == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(PaijuError) as peeking:
        outsider.view(room)
    assert peeking.value.status == grpc.StatusCode.PERMISSION_DENIED

    assert clients[0].view(room)["version"] == version  # nothing changed
    actor.act(room, "fold", version)
    wait_for("the settlement", everyone_settled(deployment), deployment)
    for client in [*clients, outsider]:
        client.close()


def test_check_action_answers_whether_a_move_is_legal_now_and_changes_nothing(deployment):
    room = f"zhajinhua-check-{deployment.shape}"
    deployment.platform.tables.open(room, "zhajinhua", "free")
    clients = new_clients(deployment, 2)
    view = start_hand(deployment, clients, room)
    hand = view["hand"]
    to_act = hand["seats"][hand["state"]["to_act"]]
    actor = next(c for c in clients if c.view(room)["seat"] == to_act)
    waiting = next(c for c in clients if c is not actor)

    assert actor.check(room, "call") == (True, "")
    legal, reason = waiting.check(room, "call")
    assert not legal and "turn" in reason
    answer = waiting.table.CheckAction(table_pb2.CheckActionRequest(table_id=room, action="call"))
    assert (answer.legal, answer.code) == (False, "not_your_turn"), "a frontend says the reason in its language by its code"
    legal, reason = actor.check(room, "raise 1000000")
    assert not legal and reason
    for bad in ("dance a jig", "call " + "x" * 600):
        with pytest.raises(PaijuError) as malformed:
            actor.check(room, bad)
        assert malformed.value.status == grpc.StatusCode.INVALID_ARGUMENT
    outsider = new_clients(deployment, 1)[0]
    with pytest.raises(PaijuError) as foreign:
        outsider.check(room, "call")
    assert foreign.value.status == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(PaijuError) as unknown:
        actor.check("no-such-table", "call")
    assert unknown.value.status == grpc.StatusCode.NOT_FOUND
    assert clients[0].view(room)["version"] == view["version"]  # asking changed nothing
    finish_hand(clients, room)
    wait_for("the settlement", everyone_settled(deployment), deployment)
    for client in [*clients, outsider]:
        client.close()


def test_concurrent_moves_on_one_version_apply_once_each(deployment):
    clients = new_clients(deployment, 4)
    room = "zhajinhua-free-03"
    view = start_hand(deployment, clients, room)
    version = view["version"]

    def together(moves: list[tuple[PaijuClient, str]]) -> list[str]:
        outcomes: list[str] = []
        barrier = threading.Barrier(len(moves))

        def move(client, action):
            barrier.wait()
            try:
                client.act(room, action, version)
                outcomes.append("won")
            except StaleView:
                outcomes.append("stale")

        threads = [threading.Thread(target=move, args=pair) for pair in moves]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sorted(outcomes)

    # Each seat's look changes only that seat's options: all four go through on one version.
    assert together([(client, "look") for client in clients]) == ["won"] * 4
    assert clients[0].view(room)["version"] == version + 4
    # One seat's move sent twice on one version acts once: the first changed that seat's options.
    version = clients[0].view(room)["version"]
    hand = clients[0].view(room)["hand"]
    actor = next(c for c in clients if c.view(room)["seat"] == hand["seats"][hand["state"]["to_act"]])
    assert together([(actor, "call"), (actor, "call")]) == ["stale", "won"]
    assert clients[0].view(room)["version"] == version + 1
    finish_hand(clients, room)
    wait_for("the settlement", everyone_settled(deployment), deployment)
    for client in clients:
        client.stand(room)
        client.close()


def finish_hand(clients, room):
    while True:
        view = clients[0].view(room)
        if view["hand"] is None:
            return view
        seat = view["hand"]["seats"][view["hand"]["state"]["to_act"]]
        actor = next(c for c in clients if c.view(room)["seat"] == seat)
        mine = actor.view(room)
        try:
            actor.act(room, "fold", mine["version"])
        except StaleView:
            continue


def test_no_stream_carries_a_card_its_seat_may_not_see(deployment):
    room = "zhajinhua-free-04"
    clients, seats = seated_clients(deployment, room)
    received: dict[int, list] = {seat: [] for seat in seats.values()}
    streams = []
    for client in clients:
        seat = seats[client.account_id]
        stream = client.watch(room)
        streams.append(stream)

        def drain(stream=stream, seat=seat):
            for update in stream:
                received[seat].append(update)

        threading.Thread(target=drain, daemon=True).start()
    wait_for("the last settlement of the room", everyone_settled(deployment), deployment)
    for client in clients:
        client.ready(room)
    rng = random.Random(3)
    while True:
        view = clients[0].view(room)
        if view["hand"] is None:
            break
        move_at_random(clients, seats, room, view["hand"]["seats"][view["hand"]["state"]["to_act"]], rng)
    last = clients[0].view(room)["last_hand"]

    def saw_the_end(updates: list) -> bool:
        """The end comes as its event, or in a fresh snapshot if the stream had to start again."""
        return any(u.event_type == "hand_over" or (u.view is not None and u.view["last_hand"] is not None
                                                   and u.view["last_hand"]["hand_id"] == last["hand_id"])
                   for u in list(updates))

    wait_until("every stream to deliver the end of the hand", lambda: all(map(saw_the_end, received.values())))
    hand_seats = last["seats"]
    dealt = {hand_seats[p["seat"]]: set(p["cards"].split()) for p in last["state"]["players"]}
    for seat, updates in received.items():
        partners = {seat}
        for update in updates:
            if update.event_type == "hand_over":
                break
            if update.event_type == "compare_result" and seat in (
                    hand_seats[update.event["seat"]], hand_seats[update.event["target"]]):
                partners |= {hand_seats[update.event["seat"]], hand_seats[update.event["target"]]}
            allowed = set().union(*(dealt[s] for s in partners))
            shown = cards_in(update.event if update.event is not None else update.view.get("hand"))
            assert shown <= allowed, (seat, update)
    for client in clients:
        client.close()
    wait_for("the settlement", everyone_settled(deployment), deployment)


@dataclasses.dataclass
class SplitDeployment:
    """Wallet, lobby and table as three servers on real Redis and PostgreSQL."""

    wallet: Any
    lobby: Any
    table: Any
    routes: dict[str, str]

    @contextlib.contextmanager
    def seated(self, count: int, room: str) -> Iterator[list[PaijuClient]]:
        """``count`` new players seated at ``room``, closed at the end."""
        tag = secrets.token_hex(3)
        clients = [PaijuClient.connect(self.routes["wallet"], f"split{tag}{i}", "a long password", self.routes,
                                       register=True) for i in range(count)]
        try:
            for client in clients:
                client.sit(room)
            yield clients
        finally:
            for client in clients:
                client.close()

    @staticmethod
    def play_a_hand(clients: list[PaijuClient], room: str) -> dict:
        """Everyone presses start and the hand is played to its end (each folds in turn)."""
        for client in clients:
            client.ready(room)
        return finish_hand(clients, room)

    def settle_now(self) -> None:
        """A pass of the relay, as the Celery worker's would be."""
        from paiju.wallet.relay import Settler, relay_outbox

        settler = Settler(self.wallet.wallet, self.wallet.leaderboard)
        relay_outbox(self.wallet.store, settler, record_scores=settler.record_scores, release=settler.release)


@contextlib.contextmanager
def split_deployment(redis_url: str, database_url: str, relay: bool) -> Iterator[SplitDeployment]:
    """Lobby and table reach the ledger over gRPC; with ``relay`` the wallet's process relays
    settlements, else only :meth:`SplitDeployment.settle_now` does. No watchdog runs: no table's
    start timer ever fires."""
    import psycopg
    import sqlalchemy as sa

    from paiju.common.config import Settings
    from paiju.platform import build
    from paiju.rpc.server import start_from_settings
    from paiju.wallet.celery_app import WorkerOptions

    run = secrets.token_hex(4)
    schema = f"e2e_split_{run}"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    base = {
        "PAIJU_SECRET": "the split deployment secret, 32 bytes",
        "PAIJU_REDIS_PREFIX": f"e2e-split-{run}",
        "REDIS_URL": sa.make_url(redis_url).set(database="13").render_as_string(False),
        "DATABASE_URL": sa.make_url(database_url).update_query_dict(
            {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False),
    }
    wallet_platform = build(Settings.from_env(base), rooms_per_tier=1, options=WorkerOptions.from_env(base),
                            services=["wallet"])
    wallet_server = start_from_settings(Settings.from_env(base), wallet_platform.bindings(["wallet"]), port=0)
    split = {**base, "PAIJU_WALLET_TARGET": wallet_server.address}
    others = {name: build(Settings.from_env(split), rooms_per_tier=1, options=WorkerOptions.from_env(split),
                          services=[name]) for name in ("lobby", "table")}
    servers = {name: start_from_settings(Settings.from_env(split), platform.bindings([name]), port=0)
               for name, platform in others.items()}
    wallet_platform.start_background(relay=relay)
    others["table"].start_background(relay=False)
    routes = {"wallet": wallet_server.address, **{name: s.address for name, s in servers.items()}}
    try:
        assert all(platform.wallet is None for platform in others.values())
        yield SplitDeployment(wallet_platform, others["lobby"], others["table"], routes)
    finally:
        for server in [wallet_server, *servers.values()]:
            server.stop(grace=0.2)
        for platform in [wallet_platform, *others.values()]:
            platform.close()
        client_ = others["table"].redis
        stale = list(client_.scan_iter(match=f"e2e-split-{run}:*", count=1000))
        if stale:
            client_.delete(*stale)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_services_deployed_apart_play_a_hand_through_the_wallet_service(redis_url, database_url):
    room = "zhajinhua-free-01"
    with split_deployment(redis_url, database_url, relay=True) as deployed, deployed.seated(2, room) as clients:
        view = deployed.play_a_hand(clients, room)
        assert view["last_hand"]["state"]["result"] is not None
        wait_for("the settlement", lambda: not deployed.table.store.outbox_pending())
        assert sum(c.balance().total for c in clients) == 2 * 20_000
        assert sorted(c.balance().total for c in clients) != [20_000, 20_000]


def test_bug_a_table_served_apart_from_the_relay_waited_for_its_start_timer_though_everyone_had_pressed_start(
    redis_url, database_url,
):
    """Everyone pressed start before the last hand's settlement landed: the hand waits for it.
    The table's server used to leave that start to its start timer (which, with no watchdog
    here, never fires); the settlement's acknowledgement now tells it to start at once."""
    room = "zhajinhua-free-01"
    with split_deployment(redis_url, database_url, relay=False) as deployed, deployed.seated(2, room) as clients:
        first = deployed.play_a_hand(clients, room)["last_hand"]["hand_id"]
        assert deployed.table.store.outbox_pending()  # nobody relays but the test
        for client in clients:
            client.ready(room)  # the second press finds the first hand still unsettled
        assert clients[0].view(room)["hand"] is None
        deployed.settle_now()
        wait_for("the next hand", lambda: (clients[0].view(room)["hand"] or {}).get("hand_id") not in (None, first))
        assert not deployed.table.store.outbox_pending()


def seat_state(client, room):
    view = client.view(room)
    return view["table"]["seats"][view["seat"]]


def test_a_dropped_stream_holds_the_seat_and_a_new_stream_brings_the_player_back(deployment):
    (player,) = new_clients(deployment, 1)
    (watcher,) = new_clients(deployment, 1)
    room = "zhajinhua-free-04"
    player.sit(room)
    watcher.sit(room)
    stream = player.watch(room)
    assert next(stream).view is not None  # the snapshot: the stream is open, the player present
    stream.close()  # the connection drops
    wait_for("the watchdog to notice", lambda: seat_state(watcher, room) is not None
             and not watcher.view(room)["table"]["seats"][player.view(room)["seat"]]["connected"])
    back = player.watch(room)
    snapshot = next(back).view
    assert snapshot["seat"] is not None  # the whole private view again, seat kept
    wait_for("the player to count as back", lambda: seat_state(player, room)["connected"])
    # Not back within the reconnect window this time: the seat is given up (no hand is on).
    # The deployment's window outlasts any test; this one is short, to see it run out.
    seat = player.view(room)["seat"]
    tables = deployment.platform.tables
    held = tables.timers
    tables.timers = dataclasses.replace(held, reconnect_ms=300)
    try:
        back.close()
        wait_for("the escape", lambda: watcher.view(room)["table"]["seats"][seat] is None)
    finally:
        tables.timers = held
    with pytest.raises(PaijuError) as gone:
        player.view(room)
    assert gone.value.status == grpc.StatusCode.PERMISSION_DENIED
    watcher.stand(room)
    for client in (player, watcher):
        client.close()


def test_closing_one_of_two_streams_keeps_the_player_connected(deployment):
    player, witness = new_clients(deployment, 2)
    room = "zhajinhua-expert-01"
    for client in (player, witness):
        client.sit(room)
    other_device = PaijuClient.connect(deployment.address, player.username, "a long enough password")
    first, second, witnessing = player.watch(room), other_device.watch(room), witness.watch(room)
    for stream in (first, second, witnessing):
        assert next(stream).view is not None
    presence = deployment.platform.presence
    first.close()  # one of the player's two streams ends; the other lives on
    wait_for("the server to see that stream end", lambda: presence.streams(room, player.account_id) == 1)
    witnessing.close()  # the witness's only stream ends after it: noticed in the same pass or later
    wait_for("the watchdog to notice the witness gone", lambda: not seat_state(witness, room)["connected"])
    assert seat_state(player, room)["connected"]
    second.close()
    for client in (player, witness):
        client.stand(room)
    for client in (player, other_device, witness):
        client.close()


def test_a_stream_that_follows_views_brings_the_view_of_each_turn_and_of_the_hand_end(deployment):
    room = "zhajinhua-free-05"
    clients, seats = seated_clients(deployment, room)
    follower = clients[0]
    my_seat = seats[follower.account_id]
    updates: list = []
    stream = follower.watch(room, follow_view=True)
    threading.Thread(target=lambda: updates.extend(stream), daemon=True).start()
    wait_for("the first snapshot", lambda: bool(updates))
    # Another seat's stream as it comes off the wire: a commit's events travel in one message.
    messages: list = []
    raw = clients[1].table.Watch(table_pb2.WatchRequest(table_id=room))

    def read_raw() -> None:
        with contextlib.suppress(grpc.RpcError):  # cancelled at the end
            messages.extend(raw)

    threading.Thread(target=read_raw, daemon=True).start()
    wait_for("the other seat's first snapshot", lambda: bool(messages))

    def pushed(done: Callable[[dict], bool]) -> Callable[[], bool]:
        return lambda: any(u.view is not None and done(u.view) for u in list(updates))

    def check_my_turn(view: dict) -> bool:
        # My turn: the stream brings what GetView says, without my asking.
        wait_for("my turn's view on the stream", pushed(lambda v, at=view["version"]: v["version"] == at))
        mine = next(u.view for u in list(updates) if u.view is not None and u.view["version"] == view["version"])
        assert mine["hand"]["state"]["legal_actions"] == view["hand"]["state"]["legal_actions"]
        assert mine["hand"]["my_hand_seat"] == view["hand"]["my_hand_seat"]
        return False  # the move itself is a random one

    last_views: list[dict] = []

    def hand_end_pushed(view: dict) -> None:
        last_views.append(view)
        wait_for("the view of the hand's end",
                 pushed(lambda v, at=view["version"]: v["version"] >= at and v["hand"] is None))

    turns_checked = hands_until_my_turn(deployment, clients, seats, room, follower, check_my_turn,
                                        random.Random(5), after_hand=hand_end_pushed)
    assert turns_checked, "five hands ended without my turn"
    views = [u.view for u in list(updates) if u.view is not None]
    assert all(v["seat"] == my_seat for v in views)
    # A view comes only when what the seat may do changed, never twice the same.
    keys = [(None if v["hand"] is None else (v["hand"]["hand_id"], tuple(v["hand"]["state"]["legal_actions"])),
             v["table"]["seats"][my_seat]["ready"], v["last_hand"] and v["last_hand"]["hand_id"]) for v in views]
    assert all(a != b for a, b in itertools.pairwise(keys)), keys
    assert [v["version"] for v in views] == sorted(v["version"] for v in views)
    wait_for("the other seat's events of the last version",
             lambda: any(e.version >= last_views[-1]["version"] for m in list(messages) for e in m.events))
    batches = [[(e.version, parse_stream_id(e.id)) for e in m.events] for m in list(messages) if m.events]
    assert any(len({version for version, _ in batch}) < len(batch) for batch in batches), \
        "a commit of several events came one message each"
    assert [event for batch in batches for event in batch] == sorted(event for batch in batches for event in batch)
    versions_by_message = [{version for version, _ in batch} for batch in batches]
    for first, second in itertools.pairwise(versions_by_message):
        assert max(first) < min(second), "a commit's events split across messages"
    raw.cancel()
    for client in clients:
        client.close()
    wait_for("the settlement", everyone_settled(deployment), deployment)


def test_the_view_shows_who_is_stood_up_for_not_pressing_start_and_when(deployment):
    room = "zhajinhua-expert-01"
    clients, seats = seated_clients(deployment, room)
    assert clients[2].view(room)["ready_kick"] is None  # nobody pressed start yet: no kick runs
    clients[0].ready(room)
    clients[1].ready(room)
    late = clients[2].view(room)
    assert late["ready_kick"]["seat"] == seats[clients[2].account_id]
    assert late["ready_kick"]["due_ms"] > 0 and late["reconnect_by_ms"] == {}
    assert clients[0].view(room)["ready_kick"] == late["ready_kick"]  # everyone at the table sees it
    for client in clients:
        client.stand(room)
        client.close()


def test_a_resumed_stream_with_nothing_to_catch_up_on_says_at_once_that_it_is_open(deployment):
    # Through the web door a stream's headers go out with its first message: a resumed stream
    # that sent nothing until the table's next event looked dead to the page.
    (player,) = new_clients(deployment, 1)
    room = "zhajinhua-expert-02"
    player.sit(room)
    last_event_id = player.view(room)["last_event_id"]
    stream = player.table.Watch(table_pb2.WatchRequest(table_id=room, after_event_id=last_event_id))
    try:
        first = next(iter(stream))
        assert not first.events and not first.HasField("snapshot")
    finally:
        stream.cancel()
        player.stand(room)
        player.close()


def test_an_acts_own_events_come_back_with_the_ids_the_stream_gives_them(deployment):
    room = "zhajinhua-expert-03"
    clients = new_clients(deployment, 3)
    view = start_hand(deployment, clients, room)
    seat = view["hand"]["seats"][view["hand"]["state"]["to_act"]]
    actor = next(c for c in clients if c.view(room)["seat"] == seat)
    before = actor.view(room)
    reply = actor.table.Act(table_pb2.ActRequest(table_id=room, expected_version=before["version"], action="fold"),
                            timeout=PATIENCE_SECONDS)
    stream = actor.table.Watch(table_pb2.WatchRequest(table_id=room, after_event_id=before["last_event_id"]))
    try:
        streamed = [event for update in itertools.islice(stream, 1) for event in update.events]
    finally:
        stream.cancel()
    assert reply.events and all(event.id for event in reply.events)
    assert all(e.HasField("typed") for e in reply.events)  # typed: nobody asked for JSON
    assert [(e.id, e.type, e.typed) for e in reply.events] == [
        (e.id, e.type, e.typed) for e in streamed[:len(reply.events)]]
    finish_hand(clients, room)
    for client in clients:
        client.stand(room)
        client.close()


def test_a_stream_that_leaves_out_own_moves_brings_everyone_elses_and_goes_on_after_the_reply(deployment):
    room = "zhajinhua-expert-04"
    clients, seats = seated_clients(deployment, room)
    mover = clients[0]
    messages: list = []
    stream = mover.table.Watch(table_pb2.WatchRequest(table_id=room, follow_view=True, leave_out_own_acts=True))

    def read() -> None:
        with contextlib.suppress(grpc.RpcError):  # cancelled at the end
            messages.extend(stream)

    threading.Thread(target=read, daemon=True).start()
    wait_for("the first snapshot", lambda: bool(messages))
    replies = []

    def act_myself(view: dict) -> bool:
        if replies:
            return False
        state = view["hand"]["state"]
        replies.append(mover.table.Act(table_pb2.ActRequest(
            table_id=room, expected_version=view["version"], action=random.Random(7).choice(state["legal_actions"]))))
        return True

    hands_until_my_turn(deployment, clients, seats, room, mover, act_myself, random.Random(7))
    reply = replies[0] if replies else None
    assert reply is not None, "five hands ended without my turn"
    mine = [event.id for event in reply.events]
    assert mine and reply.view.version == reply.version
    wait_for("the settlement", everyone_settled(deployment), deployment)
    wait_for("the stream to go on past my move",
             lambda: any(is_after(e.id, mine[-1]) for m in list(messages) for e in m.events))
    stream.cancel()
    streamed = [event.id for message in messages for event in message.events]
    assert not set(mine) & set(streamed), "my own move came on the stream too"
    assert streamed == sorted(streamed, key=parse_stream_id)
    assert reply.version not in {m.snapshot.version for m in messages if m.HasField("snapshot")}
    for client in clients:
        client.close()
