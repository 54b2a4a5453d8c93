"""A 炸金花 table of bots in this process, every hand narrated: what ``make run`` shows.

Seeds come from the OS's cryptographic source unless ``seed`` is given; with a seed the whole
session replays exactly. Each hand's commitment is checked against its reveal.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from paiju.cards import parse_cards, verify_commitment
from paiju.client.bots import BOTS, Bot
from paiju.client.narrate import narrate
from paiju.games.zhajinhua import Game, Room, Rules, level_for

NAMES = ("Ann", "Bo", "Cy", "Di", "Ed")


@dataclass
class Player:
    name: str
    coins: int
    bot: Bot
    stood_up: bool = False


def _seed_for(session_seed: int | None, number: int) -> bytes:
    if session_seed is None:
        return secrets.token_bytes(32)
    return hashlib.sha256(f"paiju-demo:{session_seed}:{number}".encode()).digest()


def run_table(
    players: int = 4,
    hands: int = 10,
    coins: int = 20_000,
    seed: int | None = None,
    room: Room = Room.FREE,
    bots: str = "sensible",
    out: Callable[[str], None] = print,
) -> list[Player]:
    """Play ``hands`` hands (0: until fewer than two can sit) and return the players' purses."""
    if not 2 <= players <= 5:
        raise ValueError(f"炸金花 seats 2–5 players, not {players}")
    rng = random.Random(seed) if seed is not None else random.Random(secrets.randbits(64))
    kinds = ["random"] if bots == "random" else ["sensible"] if bots == "sensible" else ["sensible", "random"]
    table = [Player(NAMES[i], coins, BOTS[kinds[i % len(kinds)]]) for i in range(players)]
    game = Game(Rules())
    dealer_name: str | None = None
    number = 0
    while hands == 0 or number < hands:
        for player in table:
            if not player.stood_up and player.coins < room.tier.min_coins:
                player.stood_up = True
                out(f"{player.name} has {player.coins:,} coins, under the {room.tier.min_coins:,} to sit: stood up")
        seated = [p for p in table if not p.stood_up]
        if len(seated) < 2:
            out("fewer than two players can sit: the table closes")
            break
        number += 1
        names = [p.name for p in seated]
        # The previous winner deals; at the first hand, or if the winner has left, at random.
        dealer = names.index(dealer_name) if dealer_name in names else rng.randrange(len(seated))
        hand = game.new_hand(coins=[p.coins for p in seated], dealer=dealer, seed=_seed_for(seed, number))
        out(f"\n— hand {number}: " + ", ".join(f"{p.name} {p.coins:,}" for p in seated))
        events = list(hand.opening_events)
        while True:
            for event in events:
                line = narrate(event, names)
                if line:
                    out("  " + line)
            if hand.to_act is None:
                break
            seat = hand.to_act
            events = hand.apply(seat, seated[seat].bot(hand.view(seat), rng))
        fair = verify_commitment(hand.commitment, hand.seed, parse_cards(events[-1].data["order"]))
        out(f"  commitment {'verified' if fair else 'DOES NOT MATCH'} against the reveal")
        for player, change in zip(seated, hand.result.coins):
            player.coins += change
        dealer_name = names[hand.result.winners[0]]
    out("\nafter " + f"{number} hands: " + ", ".join(
        f"{p.name} {p.coins:,} ({level_for(p.coins)[1]})" for p in sorted(table, key=lambda p: -p.coins)))
    return table
