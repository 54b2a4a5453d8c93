"""Paiju run as deployed: the image, every role of the prod overlay in its own container on a
network of the run's own, and players reaching it through the door only (``deploy/local/run.py``):
over TLS, with the run's own certificate, as production's door speaks nothing else. The run stands
in for what a cluster has beside the overlay (its Secrets, managed Redis and PostgreSQL).

Needs a container engine and the image (``make image``); without them the tests say they are
skipped, and under ``PAIJU_REQUIRE_SERVICES`` (CI) that skip is a failure.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.deploy.players import newcomers, play_zhajinhua_hand, seat_together, zhajinhua_move
from tests.patience import PATIENCE_SECONDS

ROOT = Path(__file__).resolve().parents[2]
IMAGE = os.environ.get("PAIJU_IMAGE", "paiju:latest")
OVERLAY = os.environ.get("PAIJU_DEPLOY_OVERLAY", "prod")


def _load_run_module():
    spec = importlib.util.spec_from_file_location("paiju_local_run", ROOT / "deploy" / "local" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


local_run = _load_run_module()


def _missing() -> str | None:
    if not (shutil.which("podman") or shutil.which("docker")):
        return "no container engine (apt-get install podman runc netavark aardvark-dns)"
    if not shutil.which("kubectl"):
        return "no kubectl to render the overlay"
    command = local_run.engine()
    if subprocess.run([*command, "image", "inspect", IMAGE], capture_output=True, check=False).returncode != 0:
        return f"the image {IMAGE} is not built (make image)"
    return None


@pytest.fixture(scope="module")
def deployed() -> Iterator[object]:
    missing = _missing()
    if missing:
        message = f"SKIPPED real-server test: the deployment run needs {missing}"
        if os.environ.get("PAIJU_REQUIRE_SERVICES"):
            pytest.fail(message + " (PAIJU_REQUIRE_SERVICES is set)")
        pytest.skip(message)
    run = local_run.up(OVERLAY, {}, IMAGE)
    assert len([name for name in run.names if "-paiju-table-" in name]) >= 2, "the kill test needs two table servers"
    try:
        yield run
    finally:
        keep_logs(run)
        local_run.down(run)


def keep_logs(run) -> None:
    """Every container's log, kept beside the screenshots for a failure's post-mortem (the
    containers go with the run)."""
    from tests.web.conftest import ARTIFACTS

    folder = ARTIFACTS / "deploy-logs" / run.network
    folder.mkdir(parents=True, exist_ok=True)
    for name in run.names:
        (folder / f"{name.removeprefix(run.network + '-')}.log").write_text(run.logs(name))


def _newcomers(run, count: int) -> list:
    """New players signed in through the run's door, trusting its certificate when it has one."""
    transport = {"tls": True, "root_certificates": run.certificate.read_bytes()} if run.tls else {}
    return newcomers(run.door, count, **transport)


def _sql(run, query: str) -> list[str]:
    """Rows of ``query`` on the run's PostgreSQL, asked inside its own container."""
    done = subprocess.run([*run.engine, "exec", run.container("paiju-postgres-0"), "psql", "-h", "/var/run/postgresql", "-U", "paiju", "-d",
                           "paiju", "-At", "-c", query], capture_output=True, text=True, check=True)
    return [line for line in done.stdout.splitlines() if line]


def _settled(players, timeout: float = 60) -> list[tuple[int, int]]:
    """Each player's (available, held) once no coin of theirs is held (the worker settled)."""
    deadline = time.monotonic() + timeout
    while True:
        balances = [(b.available, b.held) for b in (player.balance() for player in players)]
        if all(held == 0 for _, held in balances) or time.monotonic() > deadline:
            return balances
        time.sleep(0.5)


def test_a_whole_zhajinhua_hand_through_the_door(deployed) -> None:
    players = _newcomers(deployed, 3)
    room = seat_together(players, "zhajinhua", "free")
    last = play_zhajinhua_hand(players, room)
    result = last["state"]["result"]
    assert sum(result["coins"]) == 0 and result["winners"]
    balances = _settled(players)
    assert all(held == 0 for _, held in balances), balances
    assert [available - 20_000 for available, _ in balances] == result["coins"]
    for player in players:
        player.close()


def test_a_table_server_killed_mid_hand_the_hand_goes_on_on_the_other(deployed) -> None:
    players = _newcomers(deployed, 2)
    room = seat_together(players, "zhajinhua", "free")
    for player in players:
        player.ready(room)
    by_seat = {player.view(room)["seat"]: player for player in players}
    moved = 0
    while moved < 2:  # two moves, then one table server dies without a word
        view = players[0].view(room)
        hand = view["hand"]
        if hand is None or hand["state"].get("to_act") is None:
            time.sleep(0.2)
            continue
        actor = by_seat[hand["seats"][hand["state"]["to_act"]]]
        mine = actor.view(room)
        actor.act(room, "call", mine["version"])
        moved += 1
    hand_id = players[0].view(room)["hand"]["hand_id"]
    deployed.kill(deployed.container("paiju-table-0"))
    finished = _finish_through_retries(players, by_seat, room, hand_id)
    result = finished["state"]["result"]
    assert sum(result["coins"]) == 0
    balances = _settled(players)
    assert [available - 20_000 for available, _ in balances] == result["coins"], "settled once, no coin held"


def _finish_through_retries(players, by_seat, room: str, hand_id: str, timeout: float = 120) -> dict:
    """Plays on until ``hand_id`` is over; a call that reached the dead server is asked again."""
    from paiju.client.sdk import PaijuError, StaleView

    deadline = time.monotonic() + timeout
    moves = 2
    while time.monotonic() < deadline:
        try:
            view = players[0].view(room)
            if view["hand"] is None or view["hand"]["hand_id"] != hand_id:
                assert view["last_hand"]["hand_id"] == hand_id
                return view["last_hand"]
            to_act = view["hand"]["state"].get("to_act")
            if to_act is None:
                time.sleep(0.2)
                continue
            actor = by_seat[view["hand"]["seats"][to_act]]
            mine = actor.view(room)
            if mine["hand"] is None:
                continue  # the hand ended between the two views: the first view tells next time
            legal = mine["hand"]["state"]["legal_actions"]
            if legal:
                actor.act(room, zhajinhua_move(legal, moves), mine["version"])
                moves += 1
        except StaleView:
            continue
        except PaijuError as error:
            if error.status != grpc.StatusCode.UNAVAILABLE:
                raise
            time.sleep(0.5)
    raise AssertionError(f"{hand_id} did not end within {timeout:.0f} s after a table server was killed")


def test_the_door_serves_the_web_client_at_its_own_origin(deployed) -> None:
    import ssl
    import urllib.request

    trust = ssl.create_default_context(cafile=str(deployed.certificate)) if deployed.tls else None
    with urllib.request.urlopen(deployed.url, timeout=10, context=trust) as page:
        html = page.read().decode()
        assert page.status == 200 and "text/html" in page.headers["content-type"]
    assert "app.js" in html
    with urllib.request.urlopen(f"{deployed.url}app.js", timeout=10, context=trust) as script:
        assert script.status == 200 and len(script.read()) > 10_000


def test_a_person_in_chromium_plays_a_whole_zhajinhua_hand_through_the_door(deployed) -> None:
    from tests.web.conftest import ARTIFACTS, Browsers, _need_browser
    from tests.web.pages import Player, css

    _need_browser()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    windows = Browsers(trusted_certificate=deployed.certificate)
    others = _newcomers(deployed, 2)
    stop = threading.Event()
    playing: threading.Thread | None = None
    try:
        ann = Player(windows.open(), deployed.url, ARTIFACTS, "deployed")
        ann.register()
        ann.shot("lobby")
        room = next(r.room_id for r in others[0].rooms("zhajinhua", "free") if not any(s.account_id for s in r.seats))
        ann.choose("zhajinhua", "free")
        ann.sit(room)
        for other in others:
            other.sit(room)
            other.ready(room)
        ann.press_start()
        by_seat = {other.view(room)["seat"]: other for other in others}
        playing = threading.Thread(target=_play_along, args=(by_seat, room, stop), daemon=True)
        playing.start()
        ann.shot("table")
        ann.play_zhajinhua_to_the_settlement(180)
        rows = css(ann.driver, "[data-testid=result-row]")
        assert len(rows) == 3 and "(you)" in rows[0].text
    finally:
        stop.set()
        if playing is not None:
            # Its players' channels close below: a call it still had under way would meet a closed channel.
            playing.join(timeout=PATIENCE_SECONDS)
        windows.close()
        for other in others:
            other.close()


def test_a_person_in_chromium_plays_a_whole_hunzhan_hand_with_the_house_bots_through_the_door(deployed) -> None:
    """The house's bots (the role paiju-bots) keep company in 混战's first stake10 room, signed in
    through the door as players are; a person joins them from the page and plays a whole hand."""
    from tests.web.conftest import ARTIFACTS, Browsers, _need_browser, wait_until
    from tests.web.pages import Player, css

    _need_browser()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    windows = Browsers(trusted_certificate=deployed.certificate)
    (looker,) = _newcomers(deployed, 1)
    room = "hunzhan-stake10-01"

    def house_bots_seated() -> int:
        (listed,) = [r for r in looker.rooms("hunzhan", "stake10") if r.room_id == room]
        return sum(1 for seat in listed.seats if seat.username.startswith("house-"))

    try:
        wait_until("the house's three bots in the room", lambda: house_bots_seated() == 3, timeout=120)
        cho = Player(windows.open(), deployed.url, ARTIFACTS, "deployed-hunzhan")
        cho.register()
        cho.choose("hunzhan", "stake10")
        cho.sit(room)
        cho.press_start()
        wait_until("the deal", lambda: cho.hand_cards(), timeout=60)
        cho.shot("dealt")
        assert cho.play_trick_hand_to_the_settlement(HAND_SECONDS) > 0
        rows = css(cho.driver, "[data-testid=result-row]")
        assert len(rows) == 4 and "(you)" in rows[0].text
        assert sum(1 for row in rows if "house-" in row.text) == 3
        # The coins add up: what the column misses is the house's fee, shown beside it.
        coins = [int(row.find_elements("css selector", "td")[-1].text.replace(",", "").replace("+", "").replace("−", "-"))
                 for row in rows]
        fee_note = css(cho.driver, "[data-testid=fee-note]")
        assert bool(fee_note) == (sum(coins) != 0), (coins, [n.text for n in fee_note])
        if fee_note:
            assert str(-sum(coins)) in fee_note[0].text
    finally:
        windows.close()
        looker.close()


HAND_SECONDS = 300
"""A bound on one whole trick hand (about 13 tricks): it only stops a test that would hang."""


def _play_along(by_seat, room: str, stop: threading.Event) -> None:
    """The two other players of the browser's hand, on the SDK through the door."""
    from paiju.client.sdk import PaijuError

    moves = 0
    while not stop.is_set():
        for seat, player in by_seat.items():
            try:
                view = player.view(room)
                hand = view["hand"]
                if hand is None or hand["state"].get("to_act") is None or hand["seats"][hand["state"]["to_act"]] != seat:
                    continue
                legal = hand["state"]["legal_actions"]
                if legal:
                    player.act(room, zhajinhua_move(legal, moves), view["version"])
                    moves += 1
            except PaijuError:
                continue
        time.sleep(0.2)


def test_every_container_stops_on_sigterm_within_its_grace_and_the_ledger_balances(deployed) -> None:
    datastores = (deployed.container("paiju-postgres-0"), deployed.container("paiju-redis-0"))
    stoppable = [name for name in deployed.names
                 if name not in datastores and name != deployed.container("paiju-table-0")]
    results: dict[str, tuple[int, float]] = {}

    def stop(name: str) -> None:
        results[name] = deployed.stop(name, timeout=30)

    threads = [threading.Thread(target=stop, args=(name,)) for name in stoppable]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    slow = {name: seconds for name, (_, seconds) in results.items() if seconds >= 29}
    assert not slow, {name: (seconds, deployed.logs(name)[-3000:]) for name, seconds in slow.items()}
    failed = {name: code for name, (code, _) in results.items() if code not in (0, 143)}
    assert not failed, {name: deployed.logs(name)[-1500:] for name in failed}
    assert _sql(deployed, "SELECT coalesce(sum(amount), 0) FROM wallet_holds") == ["0"]
    assert _sql(deployed, "SELECT hand_id FROM wallet_entries WHERE hand_id IS NOT NULL "
                          "GROUP BY hand_id HAVING sum(amount) <> 0") == []
    total = _sql(deployed, "SELECT coalesce(sum(balance), 0) FROM wallet_accounts")
    granted = _sql(deployed, "SELECT coalesce(sum(amount), 0) FROM wallet_entries WHERE reason = 'grant'")
    assert total == granted
