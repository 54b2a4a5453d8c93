"""The wallet: accounts, a ledger of integer coins, holds and settlements over one SQL URL.

Each public method is one transaction. Changes of coins are idempotent (keyed), balances never
go below zero, and the sum of all balances, the house's included, changes only by grants.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection

from paiju.wallet import accounts, hand_history, ledger, queries, scores
from paiju.wallet.database import Database
from paiju.wallet.holds import abandon_hand, hand_holds, hands_held_before, place_holds
from paiju.wallet.migrations import migrate, wait_for_schema
from paiju.wallet.model import (
    BalanceMismatch,
    Coins,
    Entry,
    HandHeld,
    Hold,
    LeaderboardRow,
    Line,
    Settlement,
)
from paiju.wallet.passwords import PasswordHasher
from paiju.wallet.payments import apply_grant, apply_transfer
from paiju.wallet.settlement import (
    HandLines,
    applied_settlement,
    apply_settlements,
)
from paiju.wallet.validation import (
    check_expected_available,
    check_game,
    check_hand_id,
    check_holds,
    check_int,
    check_key,
    check_lines,
    check_new_password,
    check_not_negative,
    check_password,
    check_positive,
    check_username,
)

log = logging.getLogger(__name__)

DEFAULT_STARTING_GRANT = 20_000
HISTORY_LIMIT_MAX = 1_000
RACING_KEY_TRIES = 16
"""Tries of a write that loses races for unique keys (each loss is another writer's progress)."""

T = TypeVar("T")


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Wallet:
    """Coins of every account, stored in SQLite (``sqlite:///path``, ``sqlite://``) or
    PostgreSQL (``postgresql://…``).

    Call :meth:`migrate` once before anything else (it is idempotent).

    >>> wallet = Wallet("sqlite://", password_hasher=PasswordHasher(n=2**4))
    >>> wallet.migrate()
    [1, 2, 3, 4, 5, 6, 7]
    >>> alice = wallet.register("alice", "alice's secret")
    >>> bob = wallet.register("bob", "bob's secret")
    >>> wallet.balance(alice), wallet.verify_password("Alice", "alice's secret") == alice
    (20000, True)
    >>> wallet.hold("hand-1", alice, 500).amount, wallet.available(alice)
    (500, 19500)
    >>> result = wallet.settle("hand-1", "zhajinhua",
    ...     [(alice, -300, "stake"), (bob, 290, "pot"), (wallet.house, 10, "fee")])
    >>> wallet.balance(alice), wallet.balance(bob), wallet.available(alice)
    (19700, 20290, 19700)
    >>> wallet.total_coins() == wallet.grants_total() == 40_000
    True
    """

    def __init__(
        self,
        url: str | URL,
        *,
        starting_grant: int = DEFAULT_STARTING_GRANT,
        password_hasher: PasswordHasher | None = None,
        clock: Callable[[], datetime] = _utc_now,
        **engine_options: Any,
    ) -> None:
        check_int(starting_grant, "the starting grant")
        if starting_grant < 0:
            raise ValueError(f"the starting grant cannot be negative, got {starting_grant}")
        self.starting_grant = starting_grant
        self.passwords = password_hasher or PasswordHasher()
        self.clock = clock
        self.database = Database(url, **engine_options)
        self._house: int | None = None
        self.on_available: Callable[[dict[int, int]], None] | None = None
        """Told each changed account's available coins after every write that changed them:
        holds and settlements tell what their transaction counted with the accounts locked,
        other writes what a read after the commit finds. How the tables' board of coins is kept
        (:mod:`paiju.wallet.coins_board`)."""
        self._held_announcements = threading.local()

    # -- schema ------------------------------------------------------------------------------

    def migrate(self) -> list[int]:
        """Bring the schema up to date; the versions this call applied (none the second time)."""
        return migrate(self.database)

    def prepare_schema(self, how: str, wait_seconds: float) -> None:
        """Make the schema ready as ``PAIJU_MIGRATE`` says: ``start`` migrates now (one machine,
        the embedded defaults); ``wait`` waits up to ``wait_seconds`` for ``paiju migrate``
        (a deployment, where one Job migrates once per release)."""
        if how == "wait":
            wait_for_schema(self.database, wait_seconds)
        else:
            self.migrate()

    def close(self) -> None:
        """Release the database connections."""
        self.database.dispose()

    @property
    def house(self) -> int:
        """The house account's id: fees are paid to it."""
        if self._house is None:
            with self.database.read() as conn:
                self._house = accounts.house_id(conn)
        return self._house

    # -- accounts ----------------------------------------------------------------------------

    def register(self, username: str, password: str) -> int:
        """A new account with the starting grant; its id.

        Raises ``ValueError`` for a bad username or a password under 8 characters, and
        :class:`~paiju.wallet.errors.DuplicateUsername` for a taken one (case does not count).
        """
        username = check_username(username)
        stored = self.passwords.hash(check_new_password(password))
        with self.database.write() as conn:
            account = accounts.create_account(
                conn, username, stored, self.starting_grant, self.clock()
            )
        self._announce([account])
        return account

    def verify_password(self, username: str, password: str) -> int | None:
        """The account id if ``password`` is that user's, else ``None`` (bad input included).

        The username's case does not count; the password's does.
        """
        try:
            username, password = check_username(username), check_password(password)
        except (ValueError, TypeError):
            return None
        with self.database.read() as conn:
            found = accounts.password_hash(conn, username)
        if found is None:
            self.passwords.waste_time(password)
            return None
        account, stored = found
        if not self.passwords.verify(password, stored):
            return None
        if self.passwords.needs_rehash(stored):
            # The cost was raised since this password was stored: store it again at today's.
            with self.database.write() as conn:
                accounts.replace_password_hash(conn, account, stored, self.passwords.hash(password))
        return account

    def change_password(self, account: int, old_password: str, new_password: str,
                        before_storing: Callable[[], None] = lambda: None,
                        sessions_valid_after_ms: int | None = None) -> None:
        """Give ``account`` ``new_password`` (checked as a registration's) if ``old_password`` is its.

        ``before_storing`` runs once the old password is proven, just before the new one is
        stored: the service ends the other sessions there, so that if it cannot, nothing changed.
        ``sessions_valid_after_ms``: the moment those sessions end, kept with the new password
        (:meth:`session_stamps_after`).
        Raises ``ValueError`` (a bad new password, or the old one again),
        :class:`~paiju.wallet.accounts.WrongPassword`,
        :class:`~paiju.wallet.accounts.PasswordChangedMeanwhile` and ``UnknownAccount``.
        """
        check_password(old_password)
        if check_new_password(new_password) == old_password:
            raise ValueError("the new password is the same as the old one")
        with self.database.read() as conn:
            stored = accounts.stored_password_hash(conn, check_int(account, "an account id"))
        if not self.passwords.verify(old_password, stored):
            raise accounts.WrongPassword()
        replacement = self.passwords.hash(new_password)
        before_storing()
        with self.database.write() as conn:
            if not accounts.replace_password_hash(conn, account, stored, replacement, sessions_valid_after_ms):
                raise accounts.PasswordChangedMeanwhile()

    def session_stamps_after(self, after_ms: int) -> list[tuple[int, int]]:
        """``(account, sessions valid after)`` of every password changed after ``after_ms``
        (Unix ms): the stamps still worth giving back to a Redis that lost them."""
        with self.database.read() as conn:
            return accounts.session_stamps_after(conn, check_int(after_ms, "a time"))

    def account_id(self, username: str) -> int | None:
        """The id of the account called ``username``, or ``None``."""
        with self.database.read() as conn:
            return accounts.account_id(conn, check_username(username))

    def username(self, account: int) -> str:
        """The username of ``account``."""
        with self.database.read() as conn:
            return accounts.username_of(conn, check_int(account, "an account id"))

    # -- coins outside hands -----------------------------------------------------------------

    def grant(self, account: int, amount: int, key: str) -> Entry:
        """Give ``account`` ``amount`` new coins, once per idempotency ``key``."""
        check_int(account, "an account id")
        check_positive(amount, "a grant")
        check_key(key)
        entry = self._write_racing_keys(
            lambda conn: apply_grant(conn, account, amount, key, self.clock())
        )
        self._announce([account])
        return entry

    def transfer(self, source: int, target: int, amount: int, key: str) -> tuple[Entry, Entry]:
        """Move ``amount`` of ``source``'s available coins to ``target``, once per ``key``."""
        check_int(source, "the source account id")
        check_int(target, "the target account id")
        if source == target:
            raise ValueError("a transfer needs two different accounts")
        check_positive(amount, "a transfer")
        check_key(key)
        entries = self._write_racing_keys(
            lambda conn: apply_transfer(conn, source, target, amount, key, self.clock())
        )
        self._announce([source, target])
        return entries

    # -- hands -------------------------------------------------------------------------------

    def hold(self, hand_id: str, account: int, amount: int) -> Hold:
        """Set aside ``amount`` coins of ``account`` for ``hand_id`` (the most it can lose).

        Raises :class:`~paiju.wallet.errors.InsufficientFunds` when the available coins are
        fewer, :class:`~paiju.wallet.errors.HoldConflict` when the hand already holds another
        amount of this account, :class:`~paiju.wallet.errors.HandAlreadySettled` after
        settlement. Holding the same amount again changes nothing.
        """
        check_hand_id(hand_id)
        check_int(account, "an account id")
        check_not_negative(amount, "a hold")
        with self.database.write() as conn:
            placed = place_holds(conn, hand_id, {account: amount}, self.clock())
        self._announce_counted(placed.coins)
        return placed.holds[0]

    def hold_hand(
        self, hand_id: str, amounts: Mapping[int, int] | Iterable[tuple[int, int]],
        expected_available: Mapping[int, int] | None = None,
    ) -> list[Hold]:
        """Hold the coins of every player of a hand (account → amount), all or none.

        The same errors as :meth:`hold`; when one account cannot be held, none is.

        ``expected_available`` (account → coins) are the available coins the hand was dealt
        from, when the caller read them from a copy such as the board of coins instead of
        asking the ledger: unless each account has exactly that many before the hand's holds,
        nothing is held and :class:`~paiju.wallet.errors.CoinsChanged` says what it has.
        """
        return self.hold_hand_with_coins(hand_id, amounts, expected_available).holds

    def hold_hand_with_coins(
        self, hand_id: str, amounts: Mapping[int, int] | Iterable[tuple[int, int]],
        expected_available: Mapping[int, int] | None = None,
    ) -> HandHeld:
        """:meth:`hold_hand`, with the accounts' coins as the holds left them (no second read)."""
        check_hand_id(hand_id)
        checked = check_holds(amounts)
        expected = None if expected_available is None else check_expected_available(expected_available, checked)
        with self.database.write() as conn:
            placed = place_holds(conn, hand_id, checked, self.clock(), expected)
        self._announce_counted(placed.coins)
        return placed

    def release(self, hand_id: str) -> int:
        """Drop every hold of ``hand_id``, a hand abandoned before its end; the coins released
        (0 for an unknown hand). A settled hand raises
        :class:`~paiju.wallet.errors.HandAlreadySettled`."""
        check_hand_id(hand_id)
        with self.database.write() as conn:
            released = abandon_hand(conn, hand_id)
        self._announce(released)
        return sum(released.values())

    def hands_held_longer_than(self, age: timedelta, limit: int = 100, after: str = "") -> list[str]:
        """Up to ``limit`` hands with a hold placed more than ``age`` ago (by the wallet's
        clock), in id order from the first id above ``after`` (pass the last one seen to page
        on): what a sweep of holds no table owes looks at."""
        check_positive(limit, "a number of hands")
        with self.database.read() as conn:
            return hands_held_before(conn, self.clock() - age, limit, after)

    def holds(self, hand_id: str) -> dict[int, int]:
        """The open holds of ``hand_id``: account → coins."""
        check_hand_id(hand_id)
        with self.database.read() as conn:
            return hand_holds(conn, hand_id)

    def settle(
        self, hand_id: str, game: str, lines: Iterable[Line | tuple[int, int, str]]
    ) -> Settlement:
        """Apply a hand's settlement exactly once and release the hand's holds.

        ``lines`` are ``(account, amount, reason)``; fee lines pay the house; all lines add up
        to zero. A repeated delivery changes nothing and returns the applied settlement with
        ``replayed=True``. Refusals: ``ValueError`` (malformed lines, a fee not paid to the
        house), :class:`~paiju.wallet.errors.UnbalancedSettlement`,
        :class:`~paiju.wallet.errors.LossExceedsHold`,
        :class:`~paiju.wallet.errors.SettlementConflict` (delivered before with other lines),
        :class:`~paiju.wallet.errors.UnknownAccount`.
        """
        return self.settle_many([(hand_id, game, lines)])[0]

    def settle_many(
        self, hands: Iterable[tuple[str, str, Iterable[Line | tuple[int, int, str]]]]
    ) -> list[Settlement]:
        """Apply several hands' settlements ``(hand_id, game, lines)`` in one transaction, all or
        none; their settlements, in order.

        Each hand is applied exactly once, as by :meth:`settle`: a hand settled before (or
        earlier in ``hands``) comes back with ``replayed=True``. The refusals are those of
        :meth:`settle`, and one refused hand leaves every hand of the call unsettled: settle
        them one by one to find it. Far cheaper per hand than :meth:`settle` for a relay that
        finds many hands waiting (one commit and a few statements for the whole batch).
        """
        house = self.house
        deliveries = [
            HandLines(check_hand_id(hand_id), check_game(game), check_lines(lines))
            for hand_id, game, lines in hands
        ]
        if not deliveries:
            return []
        settled = self._write_racing_keys(
            lambda conn: apply_settlements(conn, deliveries, house, self.clock())
        )
        self._announce_counted(settled.coins)
        # Read after the commit: a replayed hand's players (a crash may have lost the notice of
        # its first delivery), and those whose hold a hand released though they broke even.
        replayed = {line.account for hand in deliveries for line in hand.lines} - {house} - settled.coins.keys()
        self._announce(replayed | settled.released)
        return settled.settlements

    def settlement(self, hand_id: str) -> Settlement | None:
        """The settlement applied for ``hand_id``, if any."""
        check_hand_id(hand_id)
        with self.database.read() as conn:
            return applied_settlement(conn, hand_id)

    # -- questions ---------------------------------------------------------------------------

    def balance(self, account: int) -> int:
        """The coins of ``account``."""
        return self._read(queries.balance, check_int(account, "an account id"))

    def available(self, account: int) -> int:
        """The coins of ``account`` that no hold sets aside."""
        return self._read(queries.available, check_int(account, "an account id"))

    def available_many(self, account_ids: Iterable[int]) -> dict[int, int]:
        """The available coins of each of ``account_ids`` (account → coins), read together in
        one query: what a table asks before a hand instead of one :meth:`available` per
        player. An unknown id raises :class:`~paiju.wallet.errors.UnknownAccount`."""
        wanted = [check_int(account, "an account id") for account in account_ids]
        if not wanted:
            return {}
        return self._read(queries.available_many, wanted)

    def coins_many(self, account_ids: Iterable[int]) -> dict[int, Coins]:
        """The balance and the held coins of each of ``account_ids``, read together in one
        query (account → :class:`~paiju.wallet.model.Coins`). An unknown id raises
        :class:`~paiju.wallet.errors.UnknownAccount`."""
        wanted = [check_int(account, "an account id") for account in account_ids]
        if not wanted:
            return {}
        return self._read(queries.coins_many, wanted)

    def held(self, account: int) -> int:
        """The coins of ``account`` set aside by holds of hands in progress."""
        return self._read(queries.held_coins, check_int(account, "an account id"))

    def ledger_balance(self, account: int) -> int:
        """The sum of the entries of ``account`` (what :meth:`balance` must equal)."""
        return self._read(queries.ledger_balance, check_int(account, "an account id"))

    def check_balances(self) -> list[BalanceMismatch]:
        """Every account whose cached balance is not the sum of its entries; empty when sound."""
        return self._read(ledger.check_balances)

    def history(
        self, account: int, limit: int = 50, before: int | None = None, game: str | None = None
    ) -> list[Entry]:
        """The entries of ``account``, newest first: at most ``limit`` (1–1000), only those with
        an id below ``before`` when given (pass the last id seen to page on), only those of
        ``game`` when given."""
        check_int(account, "an account id")
        check_positive(limit, "a history limit")
        if limit > HISTORY_LIMIT_MAX:
            raise ValueError(f"a history page has at most {HISTORY_LIMIT_MAX} entries")
        if before is not None:
            check_int(before, "the entry id to page before")
        if game is not None:
            check_game(game)
        return self._read(queries.history, account, limit, before, game)

    def total_coins(self) -> int:
        """The coins of all accounts together, the house included."""
        return self._read(queries.total_coins)

    def grants_total(self) -> int:
        """All coins ever granted; :meth:`total_coins` always equals it."""
        return self._read(queries.grants_total)

    def top(self, game: str, n: int = 10) -> list[LeaderboardRow]:
        """The ``n`` players with the most net coins won in ``game``, best first."""
        check_game(game)
        check_positive(n, "a leaderboard size")
        return self._read(queries.top, game, n)

    # -- score points (score channels) ------------------------------------------------------

    def record_scores(self, hand_id: str, game: str, points: Mapping[int, int]) -> bool:
        """Record a score-channel hand's points once; False if it was recorded before."""
        check_hand_id(hand_id)
        check_game(game)
        return self._write_racing_keys(
            lambda conn: scores.record_scores(conn, hand_id, game, points, self.clock())
        )

    # -- hand history ------------------------------------------------------------------------

    def keep_hand_records(self, orders: Iterable[Any]) -> int:
        """Keep the records of settled hands (relay orders with a ``record``); how many were new."""
        now = self.clock()
        hands = [
            hand_history.HandRecord(
                order.hand_id, order.game, order.table_id,
                datetime.fromtimestamp(order.ended_ms / 1000, UTC) if order.ended_ms else now,
                order.record, hand_history.nets_of(order.lines),
            )
            for order in orders
        ]
        with self.database.write() as conn:
            return hand_history.keep(conn, hands)

    def hands_of(self, account: int, limit: int = 20,
                 before: tuple[datetime, str] | None = None) -> list[hand_history.PlayedHand]:
        """``account``'s kept hands, newest first (a page of ``limit`` after ``before``)."""
        check_positive(limit, "a page size")
        return self._read(hand_history.played_by, account, limit, before)

    def hand_record(self, hand_id: str) -> hand_history.HandRecord | None:
        """One kept hand, or None (never kept, or pruned)."""
        check_hand_id(hand_id)
        return self._read(hand_history.record_of, hand_id)

    def prune_hand_records(self, older_than: timedelta) -> int:
        """Forget the hands that ended more than ``older_than`` ago; how many."""
        with self.database.write() as conn:
            return hand_history.prune(conn, self.clock() - older_than)

    def hand_scores(self, hand_id: str) -> dict[int, int]:
        """The points recorded for one score-channel hand: account → points."""
        check_hand_id(hand_id)
        return self._read(scores.hand_scores, hand_id)

    def score(self, account: int, game: str) -> int:
        """An account's score points in ``game`` (score channels), the sum of its hands."""
        return self._read(scores.score_of, account, game)

    def score_top(self, game: str, n: int = 10) -> list[LeaderboardRow]:
        check_game(game)
        check_positive(n, "a leaderboard size")
        return self._read(scores.score_top, game, n)

    # -- transactions ------------------------------------------------------------------------

    def _announce(self, changed: Iterable[int]) -> None:
        """Tell the board each changed account's available coins, read after the write."""
        wanted = sorted(set(changed))
        if self.on_available is not None and wanted:
            self._tell_board(len(wanted), lambda: self._read(queries.available_many, wanted))

    def _announce_counted(self, coins: Mapping[int, Coins]) -> None:
        """Tell the board the available coins that a write's own transaction counted with the
        accounts locked: no read. (A release, which locks no account, may commit meanwhile:
        then the count is low by what it released, and the release's own notice follows.)"""
        if self.on_available is not None and coins:
            self._tell_board(len(coins), lambda: {account: counted.available for account, counted in coins.items()})

    @contextmanager
    def announcements_held(self) -> Iterator[dict[int, int]]:
        """Within it, this thread's writes put the available coins they would tell
        :attr:`on_available` into the dict it yields instead (the last word on each account):
        a caller that writes to Redis after them (the relay, counting hands on the leaderboard)
        tells the board in the same round trip.

        >>> wallet = Wallet("sqlite://")
        >>> _ = wallet.migrate()
        >>> told = []
        >>> wallet.on_available = told.append
        >>> with wallet.announcements_held() as held:
        ...     account = wallet.register("ann", "a password")
        >>> told, held == {account: 20_000}
        ([], True)
        """
        held: dict[int, int] = {}
        self._held_announcements.coins = held
        try:
            yield held
        finally:
            self._held_announcements.coins = None

    def _tell_board(self, accounts: int, coins: Callable[[], dict[int, int]]) -> None:
        assert self.on_available is not None
        held = getattr(self._held_announcements, "coins", None)
        try:
            if held is not None:
                held.update(coins())
                return
            self.on_available(coins())
        except Exception as error:  # noqa: BLE001 - the write stands; a table then asks the ledger
            log.warning("could not announce the available coins of %d account(s): %s", accounts, error)

    def _read(self, question: Callable[..., T], *args: Any) -> T:
        with self.database.read() as conn:
            return question(conn, *args)

    def _write_racing_keys(self, change: Callable[[Connection], T]) -> T:
        """Run ``change`` in a transaction; if a concurrent one took the same unique key first
        (``IntegrityError`` on PostgreSQL), run it again: it then finds what the other
        transaction did. Each lost race is another transaction's progress, so this ends.
        (Settlement batches, which carry many keys, skip hands recorded by others instead.)"""
        for _ in range(RACING_KEY_TRIES - 1):
            try:
                with self.database.write() as conn:
                    return change(conn)
            except sa.exc.IntegrityError:
                continue
        with self.database.write() as conn:
            return change(conn)
