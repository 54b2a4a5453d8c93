"""One reader per process for the event streams of every watched table.

A Watch stream used to hold its own Redis connection and wake every second to read its table;
with thousands of players that is thousands of connections and wake-ups. The hub listens to the
store's commit notices (its own Pub/Sub channel, told of each commit with events of a table it
watches), reads the streams of the watched tables they name in one read, and hands each event to
the watchers of its table; every SWEEP_SECONDS it looks at the header of every watched table
and reads those with events it has not seen, for notices it missed. It beats the presence of
every watching player in one pipeline. A watcher sleeps until an event of its table arrives.

A commit made in this process is handed out from the commit itself (:meth:`StreamHub.deliver`):
its events with their ids, and each following watcher's state built from what was committed,
so the table is not read back; its notice then finds the hub already there and costs no read.

It used to wait in one blocking read over every watched stream: each commit anywhere then cost
a read naming all of them, so a process watching 200 tables paid 200 keys per event.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paiju.table.store import CommitReceipt, StoredEvent, TableStore, parse_commit_notice
from paiju.table.store.records import parse_stream_id

log = logging.getLogger(__name__)
EVENTS_LOST = "events lost"
"""Put before a batch of events when some before them were trimmed unread: the watcher must
start again from a snapshot."""
READ_BLOCK_MS = 200
"""How long the hub waits for a commit notice before it looks at its other duties."""
SWEEP_SECONDS = 1.0
"""How often the hub reads every watched stream, not only those commit notices name: a notice
sent while the hub was not listening is lost, and this is how late its events can then be."""
MOST_NOTICES_AT_ONCE = 10_000
"""Tables one wake-up collects notices for, so a flood of commits still gets read in turn."""
NOTICE_PASS_SECONDS = 0.02
"""The hub takes commit notices at most this often: a notice that comes sooner after its last
pass waits for the rest of this time, then goes with every notice that came meanwhile.

Every commit's notice comes back to every process, its own included, and wakes the hub's thread,
which then takes the interpreter from the event loop, mostly to find that the commit was already
handed out. Taking them in passes cut the server's CPU per action at 20 busy tables by 1–17 %
over three A B runs of ``bench/tablegen.py`` (about a tenth on average; the machine's own drift
between runs is of that size). A notice after a quiet spell is taken at once; under load, a
watcher on another process hears of a commit up to this much later."""
BEAT_SECONDS = 2.0
BEAT_RETRY_SECONDS = 0.5
WATCH_RENEW_SECONDS = 10.0
"""How often the hub renews its watch of every table it reads (``TableStore.watch_commits``):
well within the watch's 30 s, so a commit elsewhere is always told to it."""


@dataclass(eq=False)
class Subscription:
    """One watcher of one table: the events arrive in ``events``, oldest first.

    A watcher that gives ``read_state`` also gets, after each batch of its table's events, what
    ``read_state(table_id)`` returned: read once per batch for all such watchers of the table,
    so that a stream can follow the table's state without a read of its own.
    """

    table_id: str
    account: str | None
    read_state: Callable[[str], Any] | None = None
    stream_id: str = ""
    """Which of the player's streams this is: presence counts a player's live streams."""
    state_of_commit: Callable[[str, Any], Any] | None = None
    """What ``read_state`` would read after a commit made in this process, made from the commit
    instead (see :meth:`StreamHub.deliver`); without it such commits are read like the others."""
    own_moves_of: str | None = None
    """The player whose own moves (commits whose ``actor`` is this account) this watcher leaves
    out: a :class:`LeftOut` comes instead of their events and state."""
    events: queue.SimpleQueue[Any] = field(default_factory=queue.SimpleQueue)
    notify: Callable[[], None] | None = None
    """Called (from the hub's thread) after something was put in ``events``: how a watcher that
    does not block on the queue, a stream served from an event loop, learns of it."""

    def put(self, item: Any) -> None:
        self.events.put(item)
        if self.notify is not None:
            self.notify()

    def take_all(self) -> list[Any]:
        """Everything queued so far, without waiting."""
        taken = []
        while True:
            try:
                taken.append(self.events.get_nowait())
            except queue.Empty:
                return taken


@dataclass(frozen=True, slots=True)
class _OwnMove:
    """A player's own move committed here, not handed out from its commit."""

    actor: str
    event_ids: frozenset[str]
    last_event_id: str
    commit: Any


def _leaving_out(events: list[Any], own_moves: list[_OwnMove], player: str | None) -> list[Any]:
    """``events`` as a watcher leaving out ``player``'s own moves gets them: each such move's
    events replaced by one :class:`LeftOut`, in its place."""
    mine = [move for move in own_moves if move.actor == player] if player is not None else []
    if not mine:
        return events
    given: list[Any] = []
    for event in events:
        move = next((m for m in mine if event is not EVENTS_LOST and event.id in m.event_ids), None)
        if move is None:
            given.append(event)
        elif event.id == move.last_event_id:
            given.append(LeftOut(move.last_event_id, move.commit))
    return given


@dataclass(frozen=True, slots=True)
class LeftOut:
    """What a watcher that leaves out its player's own moves gets for one of them: the last
    event id of the commit, to go on after it, and the commit itself."""

    last_event_id: str
    commit: Any


class StreamHub:
    def __init__(
        self,
        store: TableStore,
        beat: Callable[[list[tuple[str, str, str]], int], Any] | None = None,
        clock_ms: Callable[[], int] = lambda: int(time.time() * 1000),
    ) -> None:
        self.store = store
        self._beat = beat
        self._clock_ms = clock_ms
        self._lock = threading.Lock()
        self._watchers: dict[str, set[Subscription]] = {}
        self._cursors: dict[str, str] = {}
        self._committing: dict[str, int] = {}
        """Commits this process has under way, per table: their notices call for no read."""
        self._wanted: set[str] = set()
        """Tables to read at the next pass: a commit of this process that could not be handed out."""
        self._noticed_meanwhile: dict[str, str] = {}
        """The last event id told of by notices ignored while a commit here was under way: what
        another process committed just after it is read once it is done."""
        self._own_moves_unsent: dict[str, list[_OwnMove]] = {}
        """Players' own moves committed here that could not be handed out in order: when the hub
        reads them, a watcher leaving out that player's moves gets a :class:`LeftOut` instead."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def subscribe(
        self, table_id: str, account: str | None, read_state: Callable[[str], Any] | None = None,
        stream_id: str = "", state_of_commit: Callable[[str, Any], Any] | None = None, leave_out_own_moves: bool = False,
    ) -> Subscription:
        """Start receiving the table's events from now on (read any backlog yourself first).
        ``leave_out_own_moves``: see :attr:`Subscription.own_moves_of`."""
        subscription = self.subscribe_many([table_id], account, read_state, stream_id, state_of_commit)[0]
        if leave_out_own_moves:
            subscription.own_moves_of = account
        return subscription

    def subscribe_many(
        self, table_ids: list[str], account: str | None, read_state: Callable[[str], Any] | None = None,
        stream_id: str = "", state_of_commit: Callable[[str, Any], Any] | None = None,
    ) -> list[Subscription]:
        """:meth:`subscribe` to several tables at once: the tables nobody watched yet are read in
        one round trip (a room list watches every room of a tier)."""
        subscriptions = [Subscription(table_id, account, read_state, stream_id=stream_id,
                                      state_of_commit=state_of_commit) for table_id in table_ids]
        with self._lock:
            new = [table_id for table_id in dict.fromkeys(table_ids) if table_id not in self._watchers]
            found = self.store.load_many(new, watching=True) if new else {}
            for table_id in new:
                self._watchers[table_id] = set()
                snapshot = found.get(table_id)
                self._cursors[table_id] = (snapshot.last_event_id if snapshot else "") or "0-0"
            for subscription in subscriptions:
                self._watchers[subscription.table_id].add(subscription)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="stream-hub", daemon=True)
                self._thread.start()
        return subscriptions

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            watchers = self._watchers.get(subscription.table_id)
            if watchers is None:
                return
            watchers.discard(subscription)
            if not watchers:
                del self._watchers[subscription.table_id]
                del self._cursors[subscription.table_id]
                self._own_moves_unsent.pop(subscription.table_id, None)

    def committing(self, table_id: str) -> None:
        """A commit of this process is under way at the table: its notice, should it come
        first, is no reason to read (:meth:`committed` hands it out or has it read)."""
        with self._lock:
            self._committing[table_id] = self._committing.get(table_id, 0) + 1

    def committed(self, table_id: str, receipt: CommitReceipt | None, commit: Any, actor: str | None = None) -> None:
        """The commit announced by :meth:`committing` is done (``receipt`` None: it failed):
        :meth:`deliver` it, or have the table read at the next pass."""
        # One hold of the lock: a read the hub finished meanwhile must not hand the commit out
        # between the end of "committing" and its delivery, as the player's own move to a
        # stream that leaves it out (found by CI).
        with self._lock:
            left = self._committing.get(table_id, 1) - 1
            if left:
                self._committing[table_id] = left
            else:
                self._committing.pop(table_id, None)
            delivered = receipt is not None and self._deliver_held(table_id, receipt, commit, actor)
            if not delivered and receipt is not None and receipt.events and actor is not None \
                    and table_id in self._cursors:
                self._own_moves_unsent.setdefault(table_id, []).append(
                    _OwnMove(actor, frozenset(event.id for event in receipt.events), receipt.last_event_id, commit))
            noticed = None if table_id in self._committing else self._noticed_meanwhile.pop(table_id, None)
            cursor = self._cursors.get(table_id)
            if cursor is not None and (not delivered or (noticed is not None and _tells_more(noticed, cursor))):
                self._wanted.add(table_id)

    def deliver(self, table_id: str, receipt: CommitReceipt, commit: Any, actor: str | None = None) -> bool:
        """Hand out a commit this process just made (``receipt``: what the store wrote;
        ``commit``: what each watcher's ``state_of_commit`` is made from; ``actor``: the player
        whose own move it was, if any), without reading.

        Only when the hub had read the table up to the commit's first event; otherwise (it is
        behind, e.g. another process committed meanwhile) the commit is left to be read in
        order, and False says so. True also when nobody here watches the table."""
        with self._lock:
            return self._deliver_held(table_id, receipt, commit, actor)

    def _deliver_held(self, table_id: str, receipt: CommitReceipt, commit: Any, actor: str | None) -> bool:
        """:meth:`deliver`, the lock held."""
        if not receipt.events:
            return True
        watchers = self._watchers.get(table_id)
        if not watchers:
            return True
        if self._cursors[table_id] != receipt.previous_event_id:
            return False
        wanting = [s for s in watchers if s.read_state is not None]
        if any(s.state_of_commit is None for s in wanting):
            return False
        self._cursors[table_id] = receipt.last_event_id
        states: dict[Callable[[str, Any], Any], Any] = {}
        for subscription in watchers:
            if actor is not None and subscription.own_moves_of == actor:
                # Nothing to send: the watcher takes it with whatever wakes it next, in order.
                subscription.events.put(LeftOut(receipt.last_event_id, commit))
                continue
            for event in receipt.events:
                subscription.events.put(event)
            if subscription.read_state is None:
                if subscription.notify is not None:
                    subscription.notify()
                continue
            make = subscription.state_of_commit
            if make not in states:
                states[make] = make(table_id, commit)  # type: ignore[index,misc]
            subscription.put(states[make])  # type: ignore[index]
        return True

    def _run(self) -> None:
        next_beat = next_sweep = last_pass = 0.0
        next_watch = time.monotonic() + WATCH_RENEW_SECONDS  # subscribe_many watched them just now
        notices = None
        while not self._stop.is_set():
            if time.monotonic() >= next_beat and self._beat is not None:
                # A failed beat (Redis away) is tried again soon: the watchdog's quiet time
                # must not run out on a live stream once Redis is back.
                next_beat = time.monotonic() + (BEAT_SECONDS if self._beat_all() else BEAT_RETRY_SECONDS)
            if time.monotonic() >= next_watch:
                next_watch = time.monotonic() + (WATCH_RENEW_SECONDS if self._renew_watches() else BEAT_RETRY_SECONDS)
            with self._lock:
                watching = bool(self._cursors)
            if not watching:
                self._stop.wait(READ_BLOCK_MS / 1000)
                continue
            try:
                if notices is None:
                    notices = self.store.commit_notices()
                    next_sweep = 0.0  # what was committed before it listened: read everything
                changed = _changed_tables(notices, until=last_pass + NOTICE_PASS_SECONDS, wait=self._stop.wait)
                if changed:
                    last_pass = time.monotonic()
            except Exception:  # Redis away: listen again, and sweep in the meantime
                log.exception("stream hub lost its commit notices; listening again")
                notices = _closed(notices)
                changed, next_sweep = {}, 0.0
                self._stop.wait(1.0)
            sweep = time.monotonic() >= next_sweep
            with self._lock:
                for table_id, last in changed.items():
                    if table_id in self._committing:
                        _note_notice(self._noticed_meanwhile, table_id, last)
                cursors = dict(self._cursors) if sweep else {
                    table_id: self._cursors[table_id] for table_id, last in changed.items()
                    if table_id in self._cursors and table_id not in self._committing
                    and _tells_more(last, self._cursors[table_id])}
                cursors.update({table_id: self._cursors[table_id] for table_id in self._wanted
                                if table_id in self._cursors})
                self._wanted.clear()
            if sweep:
                next_sweep = time.monotonic() + SWEEP_SECONDS
            if cursors:
                self._read_and_hand_out(cursors, sweeping=sweep)
        _closed(notices)

    def _read_and_hand_out(self, cursors: dict[str, str], sweeping: bool = False) -> None:
        try:
            # A sweep finds few tables with news: it reads each one's header first, and whole
            # only those (it read a kilobyte or three of every watched table a second).
            found, marks = self.store.read_with_marks(cursors, count=500, peek_first=sweeping)
        except Exception:  # Redis away: the watchers keep waiting; try again
            log.exception("stream hub read failed")
            self._stop.wait(1.0)
            return
        lost = _lost_events(cursors, found, marks)
        with self._lock:
            stateful: list[tuple[str, list[Subscription]]] = []
            for table_id, events in found.items():
                if table_id not in self._cursors:
                    continue
                if table_id in self._committing:
                    # A commit of this process may be among these events, and only its own
                    # hand-out knows whose move it was: it hands them out, or has them read again.
                    if events:
                        _note_notice(self._noticed_meanwhile, table_id, events[-1].id)
                    continue
                # A commit of this process may have been handed out while this read was on.
                cursor = self._cursors[table_id]
                if cursor != cursors[table_id]:
                    events = [event for event in events if after(event.id, cursor)]
                if not events:
                    continue
                self._cursors[table_id] = events[-1].id
                if table_id in lost:
                    events = [EVENTS_LOST, *events]
                watchers = self._watchers.get(table_id, ())
                wanting = [s for s in watchers if s.read_state is not None]
                own_moves = self._own_moves_read(table_id, events[-1].id)
                for subscription in watchers:
                    for event in _leaving_out(events, own_moves, subscription.own_moves_of):
                        subscription.events.put(event)
                    if subscription.read_state is None and subscription.notify is not None:
                        subscription.notify()  # the others are woken by the state after
                if wanting:
                    stateful.append((table_id, wanting))
        for table_id, wanting in stateful:
            self._hand_out_state(table_id, wanting)

    def _own_moves_read(self, table_id: str, read_to: str) -> list[_OwnMove]:
        """The unsent own moves of ``table_id`` (under the lock), those a read up to ``read_to``
        has passed no longer kept."""
        unsent = self._own_moves_unsent.get(table_id)
        if not unsent:
            return []
        kept = [move for move in unsent if after(move.last_event_id, read_to)]
        if kept:
            self._own_moves_unsent[table_id] = kept
        else:
            del self._own_moves_unsent[table_id]
        return unsent

    @staticmethod
    def _hand_out_state(table_id: str, wanting: list[Subscription]) -> None:
        # Watchers of different kinds (a table's views, the lobby's room list) read different
        # states: each reader runs once for all the watchers that gave it.
        readers: dict[Callable[[str], Any], list[Subscription]] = {}
        for subscription in wanting:
            readers.setdefault(subscription.read_state, []).append(subscription)  # type: ignore[arg-type]
        for read_state, watchers in readers.items():
            try:
                state = read_state(table_id)
            except Exception:  # the watchers still have the events; the state follows a later batch
                log.exception("reading table %s after its events failed", table_id)
                for subscription in watchers:
                    if subscription.notify is not None:
                        subscription.notify()
                continue
            for subscription in watchers:
                subscription.put(state)

    def _renew_watches(self) -> bool:
        """Renew the watch of every table read here (one round trip); False if that failed."""
        with self._lock:
            tables = list(self._cursors)
        try:
            self.store.watch_commits(tables)
        except Exception:
            log.exception("renewing the watches of %d tables failed", len(tables))
            return False
        return True

    def _beat_all(self) -> bool:
        """Beat for every player's stream here; False if that failed."""
        with self._lock:
            present = [(s.table_id, s.account, s.stream_id) for watchers in self._watchers.values() for s in watchers
                       if s.account is not None]
        if present:
            try:
                self._beat(present, self._clock_ms())  # type: ignore[misc]
            except Exception:
                log.exception("presence beat failed")
                return False
        return True

    def watched(self) -> dict[str, set[str]]:
        """The tables this process streams, and the players watching each."""
        with self._lock:
            return {
                table_id: {s.account for s in watchers if s.account is not None}
                for table_id, watchers in self._watchers.items()
            }

    def interrupt(self) -> None:
        """Wake every watcher (with a ``None`` in its queue), e.g. to end streams at shutdown."""
        with self._lock:
            for watchers in self._watchers.values():
                for subscription in watchers:
                    subscription.put(None)

    def stop(self) -> None:
        self._stop.set()


def _lost_events(cursors: dict[str, str], found: dict[str, list[StoredEvent]], marks: dict[str, str]) -> set[str]:
    """The tables whose stream was trimmed past the hub's cursor before it read on (the hub fell
    more than a stream's length behind): their watchers missed events."""
    return {table_id for table_id, events in found.items()
            if events and table_id in marks and parse_stream_id(cursors[table_id]) < parse_stream_id(marks[table_id])}


def _changed_tables(notices: Any, until: float = 0.0, wait: Callable[[float], Any] = time.sleep,
                    clock: Callable[[], float] = time.monotonic) -> dict[str, str]:
    """The tables named by the commit notices of the next READ_BLOCK_MS, each with the last
    event id its notices told of: once one comes, and ``until`` (a ``clock`` time) has passed,
    with every one that came meanwhile."""
    changed: dict[str, str] = {}
    notice = notices.get_message(timeout=READ_BLOCK_MS / 1000)
    if notice is not None and (early := until - clock()) > 0:
        wait(early)
    while notice is not None and len(changed) < MOST_NOTICES_AT_ONCE:
        _note_notice(changed, *parse_commit_notice(notice["data"]))
        notice = notices.get_message(timeout=0.0)
    return changed


def _tells_more(notice_id: str, known_id: str) -> bool:
    """Whether a notice's last event id goes past ``known_id``: one without an id (from an
    older server, ``""``) always may."""
    return not notice_id or after(notice_id, known_id)


def _note_notice(latest: dict[str, str], table_id: str, notice_id: str) -> None:
    """Keep in ``latest`` the furthest a table's notices told of (``""`` once one had no id)."""
    known = latest.get(table_id)
    if known is None or (known and _tells_more(notice_id, known)):
        latest[table_id] = notice_id


def _closed(notices: Any) -> None:
    if notices is not None:
        try:
            notices.close()
        except Exception:
            log.debug("closing the commit notices failed", exc_info=True)


def after(event_id: str, cursor: str) -> bool:
    """Whether stream id ``event_id`` comes after ``cursor``."""
    return parse_stream_id(event_id) > parse_stream_id(cursor)
