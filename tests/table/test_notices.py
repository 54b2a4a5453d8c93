"""Listening to the store's notices: each heard once, a failing handler deafens nothing, and a
table's start is asked for once however many notices come while it is on its way."""

from __future__ import annotations

import threading

from paiju.table.notices import HandStarter, NoticeListener
from paiju.table.store import TableStore
from tests.patience import PATIENCE_SECONDS, wait_until


def test_each_outbox_notice_is_heard_and_a_failing_handler_deafens_nothing(store: TableStore) -> None:
    heard: list[str] = []

    def handle(table_id: str) -> None:
        heard.append(table_id)
        if table_id == "t1":
            raise RuntimeError("this table's handling failed")

    listener = NoticeListener(store, store.outbox_channel, handle, "test-notices").start()
    try:
        assert listener.subscribed.wait(PATIENCE_SECONDS)
        store.create("t1", b"s")
        store.create("t2", b"s")
        store.commit("t1", 1, b"s", outbox=[("hand-1:a", b"1")])
        store.commit("t2", 1, b"s", outbox=[("hand-1:b", b"1")])
        wait_until("both notices", lambda: len(heard) >= 2)
        assert heard == ["t1", "t2"]
    finally:
        listener.stop()


def test_a_tables_start_is_asked_for_once_while_one_is_on_its_way() -> None:
    release = threading.Event()
    started: list[str] = []

    def start(table_id: str) -> None:
        started.append(table_id)
        assert release.wait(PATIENCE_SECONDS)

    starter = HandStarter(start, workers=1)
    try:
        starter.start_soon("t1")
        wait_until("the first start", lambda: started == ["t1"])
        starter.start_soon("t1")  # queued behind the first (one worker): not yet begun
        starter.start_soon("t1")  # already queued: the queued start reads the table as it is then
        starter.start_soon("t2")
        release.set()
        wait_until("both tables", lambda: len(started) == 3)
        assert started == ["t1", "t1", "t2"]
    finally:
        starter.close()


def test_bug_every_table_server_that_heard_a_settlement_started_the_next_hand(backend) -> None:
    # The `settled` notice reaches every table server that remembers the table; each started the
    # hand, and all but one dealt and asked the ledger to hold for nothing (with two processes
    # and the relay in the Celery worker, 1,042 starts of 1,140 were dealt again). One claims it.
    servers = [backend.store(), backend.store()]
    assert [server.claim_start("t1", hold_ms=60_000) for server in servers] == [True, False]
    assert servers[1].claim_start("t2", hold_ms=60_000)  # each table has its own claim
    servers[0].claim_start("t3", hold_ms=1)
    wait_until("a claim that has lapsed to be free again", lambda: servers[1].claim_start("t3", hold_ms=1))
