"""One line of plain text per 炸金花 event, for terminals and logs.

>>> from paiju.games.engine import Event
>>> narrate(Event("raised", {"seat": 2, "amount": 60, "stake": 30, "pot": 130}), ["Ann", "Bo", "Cy"])
'Cy raises the stake to 30 (pays 60, pot 130)'
"""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import format_cards, parse_cards
from paiju.games.engine import Event
from paiju.games.zhajinhua import hand_category, is_special_235


def describe_hand(cards: str) -> str:
    """The cards high to low and their category.

    >>> describe_hand("5D 2S 3H")
    '5D 3H 2S (special 235)'
    """
    cards = format_cards(sorted(parse_cards(cards), key=lambda card: -card.rank))
    category = "special 235" if is_special_235(cards) else hand_category(cards).replace("_", " ")
    return f"{cards} ({category})"


def narrate(event: Event, names: Sequence[str]) -> str | None:
    """A sentence for an event, or ``None`` for events not worth a line (turn changes)."""
    data = event.data

    def who(seat: int) -> str:
        return names[seat]

    kind = event.type
    if kind == "hand_started":
        return (f"dealer {who(data['dealer'])}, ante {data['ante']}, pot cap {data['pot_cap']}; "
                f"shuffle commitment {data['commitment']}")
    if kind == "looked":
        return f"{who(data['seat'])} looks at their cards"
    if kind == "cards":
        return f"  ({who(data['seat'])} sees {describe_hand(data['cards'])})"
    if kind == "called":
        return f"{who(data['seat'])} calls {data['amount']} (pot {data['pot']})"
    if kind == "raised":
        return f"{who(data['seat'])} raises the stake to {data['stake']} (pays {data['amount']}, pot {data['pot']})"
    if kind == "folded":
        reason = {"fold": "folds", "timeout": "times out and folds", "left": "leaves and folds"}[data["reason"]]
        return f"{who(data['seat'])} {reason}"
    if kind == "judged_lost":
        return f"{who(data['seat'])} holds {data['holds']}, short of the {data['needs']} to call: out"
    if kind == "compared":
        shown = ", ".join(f"{who(int(s))} {describe_hand(c)}" for s, c in data["cards"].items())
        return f"  (privately: {shown})"
    if kind == "compare_result":
        return (f"{who(data['seat'])} compares with {who(data['target'])} (pays {data['amount']}): "
                f"{who(data['loser'])} loses")
    if kind == "opened":
        shown = ", ".join(f"{who(int(s))} {describe_hand(c)}" for s, c in data["cards"].items())
        return f"{who(data['seat'])} opens (pays {data['amount']}): {shown}; {who(data['loser'])} loses"
    if kind == "system_open":
        shown = ", ".join(f"{who(int(s))} {describe_hand(c)}" for s, c in data["cards"].items())
        return f"pot cap reached at {data['pot']}: the system opens {shown}"
    if kind == "hand_over":
        bonus = f" + bonus {data['bonus']}" if data["bonus"] else ""
        shown = f" with {describe_hand(data['winner_cards'])}" if data["winner_cards"] else ""
        changes = ", ".join(f"{who(s)} {delta:+,}" for s, delta in enumerate(data["coins"]))
        return f"{who(data['winner'])} wins the pot of {data['pot']}{bonus}{shown} ({data['how']}); {changes}"
    if kind == "reveal":
        return f"reveal: seed {data['seed']}, deck {data['order']}"
    return None
