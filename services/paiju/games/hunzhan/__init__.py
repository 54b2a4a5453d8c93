"""混战 Hunzhan, four players each for themself, 84 cards (``spec/hunzhan.md``).

The judging functions take and give card text; trump is a suit letter or ``None`` (no-trump).

>>> from paiju.games import hunzhan
>>> hunzhan.trick_winner(trump="S", plays=["9H", "JH", "5S", "KH"])
2
>>> hunzhan.legal_plays(hand="5H 9H KH", trick=["9C", "JC"], trump="S")
['9H']
>>> hunzhan.settle(points=[70, 50, 60, 60], coins_per_5=50, fee_rate=0.02)[0]
{'result': 10, 'coins': 98, 'fee': 2}
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import format_cards, parse_cards
from paiju.games import tricks
from paiju.games.dealing import SYSTEM
from paiju.games.hunzhan.actions import Action, ActionKind, Rules
from paiju.games.hunzhan.hand import SEATS, Game, Hand, Phase, deal_seed, deck_dealing
from paiju.games.hunzhan.order import (
    DECLARATIONS,
    POINTS,
    declaration_rank,
    hunzhan_order,
    points_of,
)
from paiju.games.hunzhan.plays import allowed_plays, default_key
from paiju.games.hunzhan.settlement import (
    escape_results,
    fee_on,
    hand_results,
    settle,
    settle_escape,
    share,
)


def trick_winner(trump: str | None, plays: Sequence[str]) -> int:
    """The index of the winning play of a trick (the first is the lead), judged as given."""
    return tricks.trick_winner([parse_cards(play) for play in plays], hunzhan_order(trump))


def legal_plays(hand: str, trick: Sequence[str], trump: str | None) -> list[str]:
    """Every distinct play ``hand`` may make after the plays of ``trick`` (empty: it leads),
    lowest first; each play's cards in code order."""
    order = hunzhan_order(trump)
    cards = parse_cards(hand)
    played = [parse_cards(play) for play in trick]
    if len(played) >= SEATS:
        raise ValueError("a trick has at most four plays; this one is complete")
    if played:
        lead_size = len(played[0])
        if tricks.classify(played[0], order) is None:
            raise ValueError(f"the lead {trick[0]!r} is not a single, pair or tractor")
        if len(cards) < lead_size:
            raise ValueError(f"a hand of {len(cards)} cards cannot follow a lead of {lead_size}")
    return [format_cards(play) for play in allowed_plays(cards, played, order)]


__all__ = [
    "DECLARATIONS",
    "POINTS",
    "SEATS",
    "SYSTEM",
    "Action",
    "ActionKind",
    "Game",
    "Hand",
    "Phase",
    "Rules",
    "allowed_plays",
    "deal_seed",
    "deck_dealing",
    "declaration_rank",
    "default_key",
    "escape_results",
    "fee_on",
    "hand_results",
    "hunzhan_order",
    "legal_plays",
    "points_of",
    "settle",
    "settle_escape",
    "share",
    "trick_winner",
]
