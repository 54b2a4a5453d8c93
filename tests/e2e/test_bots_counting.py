"""Which hands a bot counts: bots that share the id of a hand count the same hands after it.

The fault soak's closing phase found this: each player counted its one further hand from the
moment it came back. Three came back during a hand and left after it; the fourth came back
just after it ended, and waited alone for one more, a table that looked stuck.
"""

from __future__ import annotations

import random
import threading

import pytest

from paiju.client.bots import sensible_bot
from paiju.client.play import play_bot
from tests.e2e.conftest import Deployment
from tests.e2e.test_platform import seated_clients
from tests.patience import PATIENCE_SECONDS

ROOM = "zhajinhua-free-05"


@pytest.mark.parametrize("deployment", ["embedded"], indirect=True)
def test_bug_a_bot_back_just_after_a_hand_ended_waited_alone_for_one_more(deployment: Deployment) -> None:
    clients, _ = seated_clients(deployment, ROOM, 2)
    before = clients[0].view(ROOM)["last_hand"]
    stop = threading.Event()
    threads = [threading.Thread(target=play_bot, args=(client, "zhajinhua", "free", sensible_bot, 1),
                                kwargs={"stop": stop, "rng": random.Random(n), "room_id": ROOM})
               for n, client in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=PATIENCE_SECONDS)
    played = clients[0].view(ROOM)["last_hand"]
    assert played is not None and played != before

    # Back after that hand ended, counting from before it: it counts that hand, presses nothing.
    late = play_bot(clients[1], "zhajinhua", "free", sensible_bot, 1, stop=stop, room_id=ROOM,
                    counted_after=None if before is None else before["hand_id"])
    assert late.hands == 1 and late.actions == 0
    view = clients[1].view(ROOM)
    assert view["hand"] is None and not view["table"]["seats"][view["seat"]]["ready"]

    # By default it counts from when it sat: that hand does not count, so it presses start.
    stop_soon = threading.Timer(1.0, stop.set)
    stop_soon.start()
    waiting = play_bot(clients[1], "zhajinhua", "free", sensible_bot, 1, stop=stop, room_id=ROOM)
    assert waiting.hands == 0
    view = clients[1].view(ROOM)
    assert view["table"]["seats"][view["seat"]]["ready"]
    for client in clients:
        client.close()
