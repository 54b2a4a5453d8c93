"""炒地皮's bottom exchange: the kitty taken and buried (扣底), then robbing it (抄底) in turn
until three seats pass, the hidden declarations shown (暗炒), and play begun."""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import (
    Card,
    format_cards,
)
from paiju.games.chaodipi.actions import Action
from paiju.games.chaodipi.hand_state import (
    HandData,
    Phase,
    shown_entry,
)
from paiju.games.chaodipi.levels import SEATS
from paiju.games.chaodipi.variants import Declaration
from paiju.games.engine import (
    Event,
    require,
)


class KittyAndRobbing(HandData):
    """Burying the kitty and robbing it."""

    def _verify_turn_in(
        self, seat: int, phase: Phase, turn_seat: int | None, why_not_now: tuple[str, str], whose: str
    ) -> None:
        """IllegalAction unless it is ``phase`` and ``seat`` is ``turn_seat`` (the one who ``whose``)."""
        self._verify_seat(seat)
        require(self.phase is phase, *why_not_now)
        require(seat == turn_seat, f"seat {turn_seat} {whose}, not seat {seat}", "not_your_turn")

    def verify_bury(self, seat: int, action: Action) -> None:
        self._verify_turn_in(
            seat, Phase.BURYING, self.kitty_holder, ("nobody is burying now", "not_burying"), "holds the kitty"
        )
        size = self.variant.kitty_size
        require(len(action.cards) == size, f"bury exactly {size} cards", "bad_bury")
        require(
            self._held(seat, action.cards),
            f"seat {seat} does not hold {format_cards(action.cards)}",
            "not_held",
        )

    def _take_kitty(self, seat: int) -> list[Event]:
        self.kitty_holder = seat
        self.kitty_received = list(self.kitty)
        self.hands[seat] = sorted(self.hands[seat] + self.kitty)
        self.kitty = []
        self.phase = Phase.BURYING
        taken = Event(
            "kitty_taken", {"seat": seat, "kitty": format_cards(self.kitty_received)}, (seat,)
        )
        return [Event("kitty_taken", {"seat": seat}), taken, self._turn(seat)]

    def _bury(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        for card in cards:
            self.hands[seat].remove(card)
        self.kitty = sorted(cards)
        events = [
            Event("buried", {"seat": seat}),
            Event("buried_cards", {"seat": seat, "kitty": format_cards(self.kitty)}, (seat,)),
        ]
        if self.kitty_turned:
            return events + self._start_play()
        self.phase = Phase.ROBBING
        self.passes = 0
        self.asked = self._next_asked(seat)
        return events + [self._turn(self.asked)]

    def verify_rob(self, seat: int, action: Action) -> None:
        self.verify_pass(seat)  # robbing, like passing, is for the seat being asked
        require(
            self._held(seat, action.cards),
            f"seat {seat} does not hold {format_cards(action.cards)}",
            "not_held",
        )
        kind, _ = self._reading(seat, action)
        require(kind != Declaration.SINGLE, "a rob shows a pair", "declaration_too_low")
        if self.variant.blind_declaring:
            self._verify_not_shown_blind(seat, action.cards)
        else:
            standing = self.standing
            assert standing is not None
            require(
                self.variant.outranks(kind, standing["kind"]),
                f"{format_cards(action.cards)} does not outrank {standing['cards']}",
                "declaration_too_low",
            )

    def verify_pass(self, seat: int) -> None:
        self._verify_turn_in(
            seat, Phase.ROBBING, self.asked, ("nobody is being asked to rob now", "not_robbing"), "is being asked"
        )

    def _next_asked(self, after: int) -> int:
        seat = (after + 1) % SEATS
        if seat == self.kitty_holder:
            seat = (seat + 1) % SEATS
        return seat

    def _rob(self, seat: int, action: Action) -> list[Event]:
        events = self._declare(seat, action, "rob")
        self.asked = None
        return events + self._take_kitty(seat)

    def _pass(self, seat: int) -> list[Event]:
        self.passes += 1
        events = [Event("passed", {"seat": seat})]
        if self.passes < SEATS - 1:
            self.asked = self._next_asked(seat)
            return events + [self._turn(self.asked)]
        self.asked = None
        if not self.revealed:
            self.revealed = True
            standing = self.standing
            assert standing is not None
            self.trump = standing["trump"]
            events.append(
                Event(
                    "declarations_revealed",
                    {
                        "declarations": [shown_entry(entry) for entry in self.declarations],
                        "trump": self.trump,
                    },
                )
            )
        else:
            standing = self.standing
            assert standing is not None
            self.trump = standing["trump"]
        return events + self._start_play()

    def _start_play(self) -> list[Event]:
        self.phase = Phase.PLAYING
        self._context = None
        assert self.banker is not None
        started = Event(
            "play_started",
            {
                "banker": self.banker,
                "trump": self.trump,
                "level": self.level,
                "multiples": list(self.multiples),
            },
        )
        return [started, self._turn(self.banker, leader=True)]

