"""炒地皮's trick play: which plays a seat may make (listed or judged), throws that fail, forced
red fives, and who wins each trick."""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import (
    Card,
    format_cards,
)
from paiju.games.chaodipi.hand_state import (
    HandData,
    Phase,
    points_in,
)
from paiju.games.chaodipi.levels import SEATS
from paiju.games.chaodipi.order import RED_FIVE
from paiju.games.chaodipi.play import (
    THROW,
    follows,
    is_legal_follow,
    leads,
    lowest_card,
    read_lead,
    throw_fails,
    winner,
)
from paiju.games.chaodipi.scoring import POINTS
from paiju.games.engine import (
    Event,
    IllegalAction,
)

RED_FIVE_LIMIT = 3000
"""Follows examined to find whether a 5♥ was forced (逼红5)."""


class TrickPlay(HandData):
    """Playing the 25 (or 27) tricks."""

    def verify_play(self, seat: int, cards: Sequence[Card]) -> None:
        self._verify_seat(seat)
        if self.phase is not Phase.PLAYING:
            raise IllegalAction("the cards are not being played now", "not_playing")
        if self.to_act != seat:
            raise IllegalAction(
                f"it is seat {self.to_act}'s turn, not seat {seat}'s", "not_your_turn"
            )
        play = tuple(sorted(cards))
        listed = self._listed.get(seat)
        if listed is not None and play in listed[0]:
            return
        if not self._held(seat, play):
            raise IllegalAction(f"seat {seat} does not hold {format_cards(play)}", "not_held")
        if not self.trick:
            try:
                read_lead(self.context, play)
            except ValueError:
                raise IllegalAction(
                    f"{format_cards(play)} mixes suit classes: lead one class (or a 5-10-K)",
                    "illegal_play",
                ) from None
            return
        if not is_legal_follow(self.context, self.hands[seat], self.trick[0][1], play):
            raise IllegalAction(
                f"{format_cards(play)} may not follow {format_cards(self.trick[0][1])}: follow the suit class, tractors and pairs",
                "illegal_play",
            )

    def _listed_plays(self, seat: int) -> tuple[list[tuple[Card, ...]], bool]:
        if self.phase is not Phase.PLAYING or seat != self.to_act:
            return [], True
        if seat not in self._listed:
            if self.trick:
                self._listed[seat] = follows(self.context, self.hands[seat], self.trick[0][1])
            else:
                self._listed[seat] = (leads(self.context, self.hands[seat]), False)
        return self._listed[seat]

    def plays_listed_completely(self, seat: int) -> bool:
        """Whether :meth:`legal_actions` names every play ``seat`` may make now (never while
        leading: throws are legal but not listed; rarely when following: at most
        ``LIST_LIMIT`` follows are)."""
        return self._listed_plays(seat)[1]

    def _play(self, seat: int, cards: Sequence[Card]) -> list[Event]:
        play = tuple(sorted(cards))
        events: list[Event] = []
        context = self.context
        if not self.trick:
            lead = read_lead(context, play)
            if lead.kind == THROW:
                others = [self.hands[other] for other in range(SEATS) if other != seat]
                if throw_fails(context, play, others):
                    self.failed_throws.append((seat, len(play)))
                    events.append(
                        Event("throw_failed", {"seat": seat, "attempted": format_cards(play)})
                    )
                    play = (lowest_card(context, play),)
        elif self.variant.red_five_bonuses and RED_FIVE in play:
            options, _ = follows(context, self.hands[seat], self.trick[0][1], RED_FIVE_LIMIT)
            fewest = min((option.count(RED_FIVE) for option in options), default=0)
            self.forced_fives += [seat] * min(play.count(RED_FIVE), fewest)
        for card in play:
            self.hands[seat].remove(card)
        self.cards_played += len(play)
        self.trick.append((seat, play))
        self._listed.clear()
        events.append(Event("played", {"seat": seat, "cards": format_cards(play)}))
        if len(self.trick) < SEATS:
            return events + [self._turn((seat + 1) % SEATS, leader=False)]
        plays = [cards for _, cards in self.trick]
        won_by = self.trick[winner(context, plays)][0]
        points = [card for cards in plays for card in cards if POINTS[card]]
        self.point_cards[won_by].extend(sorted(points))
        self.tricks.append(
            {"plays": [[s, format_cards(cards)] for s, cards in self.trick], "winner": won_by}
        )
        self.trick = []
        events.append(
            Event(
                "trick_won",
                {
                    "seat": won_by,
                    "points": points_in(points),
                    "attackers": self.attacker_points().total,
                },
            )
        )
        if not self.hands[won_by]:
            return events + self._finish_played()
        return events + [self._turn(won_by, leader=True)]

