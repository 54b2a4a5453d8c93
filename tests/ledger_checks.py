"""What must hold of the ledger once play has stopped and every hand is settled, whatever
failed meanwhile (a server, a worker or Redis killed): for the fault soak and the takeover test.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import sqlalchemy as sa

from paiju.table.record import hand_place
from paiju.wallet import Wallet


def ledger_faults(wallet: Wallet) -> list[str]:
    """Every way the ledger fails to balance: coins made or lost, a cached balance that is not
    the sum of its entries, a hand whose entries do not sum to zero, coins still held."""
    faults = []
    if wallet.total_coins() != wallet.grants_total():
        faults.append(f"the accounts hold {wallet.total_coins()} coins, {wallet.grants_total()} were granted")
    faults += [f"balance off: {mismatch}" for mismatch in wallet.check_balances()]
    with wallet.database.read() as conn:
        unbalanced = conn.execute(sa.text(
            "SELECT hand_id, sum(amount) FROM wallet_entries WHERE hand_id IS NOT NULL "
            "GROUP BY hand_id HAVING sum(amount) <> 0")).fetchall()
        holds = conn.execute(sa.text("SELECT hand_id, sum(amount) FROM wallet_holds GROUP BY hand_id")).fetchall()
    faults += [f"hand {hand_id}'s entries sum to {total}, not 0" for hand_id, total in unbalanced]
    faults += [f"hand {hand_id} still holds {amount} coins" for hand_id, amount in holds]
    return faults


def held_coins(wallet: Wallet) -> int:
    """The coins all holds set aside, of every account."""
    with wallet.database.read() as conn:
        return int(conn.execute(sa.text("SELECT coalesce(sum(amount), 0) FROM wallet_holds")).scalar())


def settled_hand_numbers(wallet: Wallet) -> dict[str, Counter[int]]:
    """How often the ledger settled each hand number of each table (a hand started twice
    under two ids, or settled twice, counts 2)."""
    with wallet.database.read() as conn:
        hand_ids = conn.execute(sa.text("SELECT hand_id FROM wallet_hands")).scalars().all()
    settled: dict[str, Counter[int]] = defaultdict(Counter)
    for hand_id in hand_ids:
        place = hand_place(hand_id)
        if place is not None:
            settled[place[0]][place[1]] += 1
    return settled


def settlement_faults(settled: Counter[int], hands_played: int, every_hand_moves_coins: bool = True) -> list[str]:
    """How a table's settled hand numbers differ from its hands 1..``hands_played``, each once.

    A hand that moves no coins has nothing to settle (its holds are released instead): unless
    ``every_hand_moves_coins``, a hand missing from the ledger is no fault."""
    faults = [f"hand {number} settled {times} times" for number, times in sorted(settled.items()) if times > 1]
    if every_hand_moves_coins:
        faults += [f"hand {number} never settled" for number in range(1, hands_played + 1) if number not in settled]
    faults += [f"hand {number} settled but never ended" for number in sorted(settled) if number > hands_played]
    return faults
