"""Applying a hand's settlement to the ledger, exactly once.

A settlement is a list of lines ``(account, amount, reason)`` that add up to zero, the
house's fee lines included. It is applied in one transaction that first records the hand
(``wallet_hands``, keyed by hand id) and one row per account (``wallet_settlements``, keyed by
``(hand_id, account)``): a second delivery, even one racing the first on another connection,
cannot get past those keys, and finds the applied result instead.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from paiju.wallet.errors import (
    InsufficientFunds,
    LossExceedsHold,
    SettlementConflict,
    UnbalancedSettlement,
)
from paiju.wallet.holds import take_holds
from paiju.wallet.ledger import held_by_account, lock_accounts, post_many
from paiju.wallet.model import Coins, Line, Reason, Settlement
from paiju.wallet.tables import entries, hands, settlements


def check_settlement(hand_id: str, lines: Sequence[Line], house: int) -> dict[int, int]:
    """Each account's net for the hand, after checking the rules that need no database.

    >>> check_settlement("h", [Line(1, -100, Reason.STAKE), Line(2, 95, Reason.POT),
    ...     Line(9, 5, Reason.FEE)], house=9)
    {1: -100, 2: 95, 9: 5}
    """
    for line in lines:
        if line.reason is Reason.FEE and (line.account != house or line.amount < 0):
            raise ValueError(
                f"a fee line pays the house (account {house}) a positive amount, got {line}"
            )
    total = sum(line.amount for line in lines)
    if total != 0:
        raise UnbalancedSettlement(hand_id, total)
    nets: dict[int, int] = defaultdict(int)
    for line in lines:
        nets[line.account] += line.amount
    return dict(nets)


class HandLines(NamedTuple):
    """One hand's settlement as delivered: its id, its game and its lines."""

    hand_id: str
    game: str
    lines: tuple[Line, ...]


_GAMES_OF_HANDS = sa.select(hands.c.hand_id, hands.c.game).where(
    hands.c.hand_id.in_(sa.bindparam("hand_ids", expanding=True))
)
_LINES_OF_HANDS = (
    sa.select(entries.c.hand_id, entries.c.account_id, entries.c.amount, entries.c.reason,
              entries.c.detail)
    .where(entries.c.hand_id.in_(sa.bindparam("hand_ids", expanding=True)))
    .order_by(entries.c.id)
)
# Record hands, skipping any a concurrent transaction recorded first, and return those this one
# recorded: claiming them (PostgreSQL waits for the other transaction to end). Per dialect,
# since ON CONFLICT is each database's own syntax.
_CLAIM_HANDS = {
    dialect: insert(hands).on_conflict_do_nothing(index_elements=[hands.c.hand_id]).returning(hands.c.hand_id)
    for dialect, insert in (("postgresql", postgresql.insert), ("sqlite", sqlite.insert))
}
_INSERT_SETTLEMENT = settlements.insert()


def applied_settlement(conn: Connection, hand_id: str) -> Settlement | None:
    """The settlement already applied for ``hand_id``, if any, its lines in their order."""
    return applied_settlements(conn, [hand_id]).get(hand_id)


def applied_settlements(conn: Connection, hand_ids: Sequence[str]) -> dict[str, Settlement]:
    """The settlements already applied for those of ``hand_ids`` that have one, in two queries
    (one when none has)."""
    games = {
        row.hand_id: row.game
        for row in conn.execute(_GAMES_OF_HANDS, {"hand_ids": sorted(set(hand_ids))})
    }
    if not games:
        return {}
    lines: dict[str, list[Line]] = defaultdict(list)
    for row in conn.execute(_LINES_OF_HANDS, {"hand_ids": sorted(games)}):
        lines[row.hand_id].append(
            Line(row.account_id, row.amount, Reason(row.reason), row.detail or "")
        )
    return {
        hand_id: Settlement(hand_id, game, tuple(lines[hand_id]), replayed=True)
        for hand_id, game in games.items()
    }


def same_settlement(applied: Settlement, game: str, lines: Sequence[Line]) -> bool:
    """Whether a delivery of ``game``/``lines`` is the one already applied (order aside)."""
    return applied.game == game and Counter(applied.lines) == Counter(lines)


class SettledBatch(NamedTuple):
    """What :func:`apply_settlements` did: a settlement for each delivery, in their order; the
    coins it left each player whose coins it changed (none when every hand was a replay); and
    the players whose holds it released without a line of theirs (they broke even), whose
    coins it did not count."""

    settlements: list[Settlement]
    coins: dict[int, Coins]
    released: frozenset[int] = frozenset()


def apply_settlements(
    conn: Connection, deliveries: Sequence[HandLines], house: int, at: datetime
) -> SettledBatch:
    """Apply several hands' settlements in this one transaction, all or none; a settlement for
    each delivery, in their order, and the coins left to the players it paid or charged.

    Each hand is applied once: a hand applied before, or earlier in ``deliveries``, or by a
    concurrent delivery that recorded it first, comes back with ``replayed=True`` (or raises
    :class:`SettlementConflict` if its lines differ). Any refusal raises and leaves the whole
    transaction to be rolled back. The statements are per batch, not per line: the entries'
    running balances are counted here from the locked balances, which is what posting them
    one by one would have read back.
    """
    nets = [check_settlement(hand_id, lines, house) for hand_id, _game, lines in deliveries]
    applied = applied_settlements(conn, [delivery.hand_id for delivery in deliveries])
    results: list[Settlement] = []
    fresh: list[tuple[HandLines, dict[int, int]]] = []
    for delivery, hand_nets in zip(deliveries, nets, strict=True):
        hand_id, game, lines = delivery
        earlier = applied.get(hand_id)
        if earlier is not None:
            if not same_settlement(earlier, game, lines):
                raise SettlementConflict(hand_id)
            results.append(earlier)
            continue
        applied[hand_id] = Settlement(hand_id, game, lines, replayed=True)  # a repeat in the batch
        fresh.append((delivery, hand_nets))
        results.append(Settlement(hand_id, game, lines, replayed=False))
    if not fresh:
        return SettledBatch(results, {})
    # Hands are recorded in id order, so two batches sharing hands cannot wait for each other.
    claimed = {row.hand_id for row in conn.execute(_CLAIM_HANDS[conn.dialect.name], sorted(
        ({"hand_id": delivery.hand_id, "game": delivery.game, "settled_at": at} for delivery, _nets in fresh),
        key=lambda row: row["hand_id"],
    ))}
    if len(claimed) < len(fresh):
        results = _take_the_winners(conn, results, claimed)
        fresh = [(delivery, nets) for delivery, nets in fresh if delivery.hand_id in claimed]
    if not fresh:
        return SettledBatch(results, {})
    coins, released = _apply_fresh(conn, fresh, house, at)
    return SettledBatch(results, coins, released)


def _take_the_winners(conn: Connection, results: list[Settlement], claimed: set[str]) -> list[Settlement]:
    """``results`` with the hands a concurrent transaction recorded first (it has committed by
    now) replaced by what it applied, if that was the same settlement."""
    lost = {result.hand_id: result for result in results if not result.replayed and result.hand_id not in claimed}
    applied = applied_settlements(conn, list(lost))
    for hand_id, result in lost.items():
        winner = applied.get(hand_id)
        if winner is None or not same_settlement(winner, result.game, result.lines):
            raise SettlementConflict(hand_id)
    return [applied[result.hand_id] if result.hand_id in lost and not result.replayed else result
            for result in results]


def _apply_fresh(
    conn: Connection, fresh: list[tuple[HandLines, dict[int, int]]], house: int, at: datetime
) -> tuple[dict[int, Coins], frozenset[int]]:
    """Check and post hands this transaction recorded (claimed) and nobody applied before; the
    coins left to their players (the house aside), counted with the accounts locked, and the
    players whose holds were released without a line (not locked, so not counted)."""
    balances = lock_accounts(conn, (account for _, nets in fresh for account in nets))
    held = take_holds(conn, [delivery.hand_id for delivery, _nets in fresh])
    running = dict(balances)  # each hand is checked against the balances the earlier ones left
    for delivery, nets in fresh:
        hand_held = held.get(delivery.hand_id, {})
        for account, net in sorted(nets.items()):
            if account != house and -net > hand_held.get(account, 0):
                raise LossExceedsHold(delivery.hand_id, account, -net, hand_held.get(account, 0))
            if running[account] + net < 0:
                raise InsufficientFunds(account, -net, running[account])
        for account, net in nets.items():
            running[account] += net
    conn.execute(
        _INSERT_SETTLEMENT,
        [
            {"hand_id": delivery.hand_id, "account_id": account, "net": net}
            for delivery, nets in fresh
            for account, net in nets.items()
        ],
    )
    post_many(conn, _entry_rows(fresh, balances, at))
    players = sorted(set(running) - {house})
    held_elsewhere = held_by_account(conn, players)  # these hands' holds are gone: other hands'
    released = frozenset(account for holds in held.values() for account in holds) - set(running)
    return {account: Coins(running[account], held_elsewhere[account]) for account in players}, released


def _entry_rows(
    fresh: list[tuple[HandLines, dict[int, int]]], balances_before: dict[int, int], at: datetime
) -> list[dict[str, object]]:
    """The ledger rows of ``fresh``'s lines, each with its account's balance after the line,
    counted on from ``balances_before`` (the locked balances) in the lines' order."""
    running = dict(balances_before)
    rows: list[dict[str, object]] = []
    for delivery, _nets in fresh:
        hand_id, game, lines = delivery
        line_numbers: dict[int, int] = defaultdict(int)
        for line in lines:
            line_numbers[line.account] += 1
            running[line.account] += line.amount
            rows.append({
                "account_id": line.account,
                "amount": line.amount,
                "reason": line.reason.value,
                "idempotency_key": f"hand:{hand_id}/{line.account}/{line_numbers[line.account]}",
                "hand_id": hand_id,
                "game": game,
                "detail": line.detail or None,
                "balance_after": running[line.account],
                "created_at": at,
            })
    return rows
