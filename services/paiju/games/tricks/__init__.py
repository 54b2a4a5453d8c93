"""The trick-taking core shared by 混战 Hunzhan and 炒地皮 Chao Di Pi.

- :mod:`~paiju.games.tricks.order`: trumps and strengths as data built per hand;
- :mod:`~paiju.games.tricks.shapes`: singles, pairs, tractors, and throws split into them;
- :mod:`~paiju.games.tricks.follow`: what may be led and followed, and who wins a trick;
- :mod:`~paiju.games.tricks.structure`: throws (several parts led at once), following and trumping them.

Everything here is a pure function of cards and an order, testable without a game.
"""

from paiju.games.tricks.follow import (
    Play,
    beats,
    follow_plays,
    is_legal_follow,
    lead_plays,
    multiset_choices,
    trick_winner,
)
from paiju.games.tricks.order import ABSENT, TRUMP, TRUMP_BASE, Line, TrumpOrder
from paiju.games.tricks.shapes import (
    PAIR,
    SINGLE,
    TRACTOR,
    Component,
    Shape,
    classify,
    decompose,
    pair_cards,
    tractors_in,
)
from paiju.games.tricks.structure import (
    Structure,
    covers,
    follow_bases,
    is_legal_structured_follow,
    pairs_in,
    structure_key,
    structure_of,
    structured_follows,
    tractor_cover,
)

__all__ = [
    "ABSENT",
    "PAIR",
    "SINGLE",
    "TRACTOR",
    "TRUMP",
    "TRUMP_BASE",
    "Component",
    "Line",
    "Play",
    "Shape",
    "Structure",
    "TrumpOrder",
    "beats",
    "classify",
    "covers",
    "decompose",
    "follow_bases",
    "follow_plays",
    "is_legal_follow",
    "is_legal_structured_follow",
    "lead_plays",
    "multiset_choices",
    "pair_cards",
    "pairs_in",
    "structure_key",
    "structure_of",
    "structured_follows",
    "tractor_cover",
    "tractors_in",
    "trick_winner",
]
