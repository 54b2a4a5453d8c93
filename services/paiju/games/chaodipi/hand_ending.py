"""How a 炒地皮 hand ends and settles: played out (the kitty dug, red fives saved, 天地/J到底,
levels and coins or scores) or escaped (void before the first card), and the reveal."""

from __future__ import annotations

from typing import Any

from paiju.cards import format_cards
from paiju.games.chaodipi.escape import escape_fortune_settlement, escape_score_settlement
from paiju.games.chaodipi.fortune import fortune_settlement, score_settlement
from paiju.games.chaodipi.hand_state import (
    HandData,
    Phase,
    points_data,
    shown_entry,
)
from paiju.games.chaodipi.levels import MatchState, is_jack_to_bottom, settle_hand
from paiju.games.chaodipi.scoring import (
    AttackerPoints,
    Side,
    dig_points,
    is_heaven_and_earth,
    red_five_points,
    saved_red_fives,
)
from paiju.games.engine import (
    Event,
    Settlement,
)


class Ending(HandData):
    """The end of the hand: played out or escaped."""

    def _finish_played(self) -> list[Event]:
        assert self.banker is not None
        rules = self.variant
        last = self.tricks[-1]
        last_winner = last["winner"]
        winning_play = {s: text for s, text in last["plays"]}[last_winner]
        side = self.side(last_winner)
        base = self.attacker_points()
        dig = 0
        if side is Side.ATTACKERS and self.kitty:
            dig = dig_points(self.kitty, winning_play, rules)
        saved: list[Side] = []
        if rules.red_five_bonuses and len(self.tricks) >= 2:
            second_winner = self.tricks[-2]["winner"]
            for seat, text in last["plays"]:
                saved += [self.side(seat)] * saved_red_fives(text, seat == second_winner)
        forced = [self.side(seat) for seat in self.forced_fives]
        points = AttackerPoints(
            tricks=base.tricks,
            dig=dig,
            red_fives=red_five_points(rules, forced=forced, saved=saved),
            failed_throws=base.failed_throws,
            failed_robs=base.failed_robs,
        )
        match = (
            self.match
            if self.match.banker is not None
            else self.match.with_first_banker(self.banker)
        )
        heaven: Side | None = None
        jack = False
        if not self.flag:
            assert self.level is not None
            if is_heaven_and_earth(
                winning_play, side, level=self.level, trump=self.trump, rules=rules
            ):
                heaven = side
            else:
                jack = is_jack_to_bottom(
                    winning_play, side, level=self.level, points=points.counted, rules=rules
                )
        outcome = settle_hand(
            rules, match, points.counted, heaven_and_earth=heaven, jack_to_bottom=jack
        )
        if self.rules.channel.moves_coins:
            settled = fortune_settlement(
                outcome,
                base_stake=self.rules.base_stake,
                multiples=self.multiples,
                balances=self.coins,
                robs=self.robs,
                repeat=match.repeat,
            )
        else:
            settled = score_settlement(outcome, self.multiples)
        details = {
            **settled.details,
            "how": "played",
            "points": points_data(points),
            "winner": str(outcome.winner),
            "score": outcome.score,
            "scores": None if settled.scores is None else list(settled.scores),
            "levels_gained": outcome.levels_gained,
            "match_winner": outcome.match_winner,
            "heaven_and_earth": None if heaven is None else str(heaven),
            "jack_to_bottom": jack,
            "last_trick": {"winner": last_winner, "play": winning_play},
        }
        return self._finish(settled, details, outcome.next)

    def _escape(self, seat: int, reason: str) -> list[Event]:
        played = self.cards_played > 0
        match = self.match
        points = self.attacker_points().counted if played else 0
        if played and match.banker is None:
            assert self.banker is not None
            match = match.with_first_banker(self.banker)
        if self.rules.channel.moves_coins:
            settled = escape_fortune_settlement(
                self.variant,
                match,
                seat,
                points,
                base_stake=self.rules.base_stake,
                multiples=self.multiples,
                balances=self.coins,
                robs=self.robs,
                cards_played=played,
            )
        else:
            settled = escape_score_settlement(
                self.variant, match, seat, points, multiples=self.multiples, cards_played=played
            )
        details = {
            **settled.details,
            "how": "escape" if played else "void",
            "reason": reason,
            "points": points_data(self.attacker_points()),
            "scores": None if settled.scores is None else list(settled.scores),
        }
        # Levels do not change and the same banker deals again (a first hand stays a first hand).
        events = [Event("escaped", {"seat": seat, "reason": reason, "void": not played})]
        return events + self._finish(settled, details, match if played else self.match)

    def _finish(
        self, settled: Settlement, details: dict[str, Any], following: MatchState
    ) -> list[Event]:
        self.phase = Phase.OVER
        self.to_act = None
        self.asked = None
        self._listed.clear()
        self.revealed = True
        next_first = following.banker if following.banker is not None else self.first_receiver
        full = {
            **details,
            "variant": self.variant.name,
            "level": self.level,
            "trump": self.trump,
            "banker": self.banker,
            "robs": self.robs,
            "multiples": list(self.multiples),
            "declarations": [shown_entry(entry) for entry in self.declarations],
            "kitty": format_cards(self.kitty),
            "match": following.to_dict(),
            "next_first_receiver": next_first,
        }
        self.result = Settlement(
            coins=settled.coins,
            lines=settled.lines,
            fee=settled.fee,
            scores=settled.scores,
            winners=settled.winners,
            details=full,
        )
        over = Event("hand_over", {"coins": list(settled.coins), **full})
        return [over, Event("reveal", self._reveal())]

    def _reveal(self) -> dict[str, Any]:
        return {**super()._reveal(), "kitty": format_cards(self.kitty)}

