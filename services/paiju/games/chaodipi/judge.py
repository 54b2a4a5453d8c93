"""The card-text judging functions of ``spec/engine-api.md`` for 炒地皮.

>>> trick_winner(level="2", trump="S", plays=["5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "AC KC QC"], variant="yangzhou")
2
>>> is_legal_follow(hand="4S 7C 8C 9C", lead="5C 4C 4C", play="7C 8C 9C", level="7", trump="S", variant="yangzhou")
True
>>> is_legal_follow(hand="8C 8C 9C KS", lead="5C 4C 4C", play="9C KS 8C", level="7", trump="S", variant="yangzhou")
False
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import Card, parse_cards
from paiju.games.chaodipi import play as plays_module
from paiju.games.chaodipi.variants import VariantRules, variant_rules


def _rules(variant: str | VariantRules) -> VariantRules:
    return variant if isinstance(variant, VariantRules) else variant_rules(variant)


def _cards(cards: str | Sequence[Card | str]) -> list[Card]:
    return parse_cards(cards)


def trick_winner(
    level: str,
    trump: str | None,
    plays: Sequence[str | Sequence[Card | str]],
    variant: str | VariantRules = "yangzhou",
) -> int:
    """The index of the winning play of a trick (the first is the lead), judged as given: a
    throw is not checked against the hands, nor a play against the follow rules."""
    context = plays_module.Context.of(level, trump, _rules(variant))
    return plays_module.winner(context, [_cards(play) for play in plays])


def is_legal_follow(
    hand: str | Sequence[Card | str],
    lead: str | Sequence[Card | str],
    play: str | Sequence[Card | str],
    level: str,
    trump: str | None,
    variant: str | VariantRules = "yangzhou",
) -> bool:
    """Whether ``play`` (from ``hand``) may follow ``lead``: the suit class, tractors and pairs
    where held, and the trump 5-10-K's duty where the variant has it."""
    context = plays_module.Context.of(level, trump, _rules(variant))
    return plays_module.is_legal_follow(context, _cards(hand), _cards(lead), _cards(play))
