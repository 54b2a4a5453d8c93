"""What one seat (or a spectator) of a 炒地皮 hand may see: its own hand only; the kitty only to
its holder until turned up; 暗炒 declarations only to their makers until the reveal; the deck
and seed only at the end."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paiju.cards import format_cards
from paiju.games.chaodipi.hand_state import (
    HandData,
    Phase,
    points_data,
    private_entry,
    shown_entry,
)
from paiju.games.chaodipi.levels import SEATS


class SeatView(HandData):
    """What a seat sees."""

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything ``seat`` (``None``: a spectator) may know now, as JSON-ready data: its own
        hand only; the kitty only to its holder (everyone once turned up or over); 暗炒
        declarations only to their makers until the reveal; deck and seed only at the end."""
        if seat is not None and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS
        ):
            raise ValueError(f"there is no seat {seat!r} at a 炒地皮 table")
        over = self.is_over
        declarations = [
            shown_entry(entry)
            if self.revealed
            else private_entry(entry)
            if entry["seat"] == seat
            else {"seat": entry["seat"], "stage": entry["stage"]}
            for entry in self.declarations
        ]
        kitty_visible = over or (
            seat is not None and seat == self.kitty_holder and self.phase is not Phase.DEALING
        )
        standing = self.standing
        trump_known = (
            self.phase in (Phase.PLAYING, Phase.OVER)
            or self.kitty_turned
            or (self.revealed and standing is not None)
        )
        points = self.attacker_points()
        return {
            "game": self.GAME,
            "variant": self.variant.name,
            "seat": seat,
            "phase": str(self.phase),
            "flag_hand": self.flag,
            "level": self.level,
            "match": self.match.to_dict(),
            "first_receiver": self.first_receiver,
            "deal": len(self.orders) - 1,
            "dealt": self.dealt,
            "commitment": self.commitment,
            "banker": self.banker,
            "declarations": declarations,
            "trump": self._shown_trump(standing) if trump_known else None,
            "trump_known": trump_known,
            "kitty_holder": self.kitty_holder,
            "kitty": format_cards(self.kitty) if kitty_visible else None,
            "kitty_turned": format_cards(self.kitty_received) if self.kitty_turned else None,
            "asked": self.asked,
            "multiples": list(self.multiples),
            "to_act": self.to_act,
            "turn_number": self.turn_number,
            "pending_system_step": self.pending_system_step,
            "trick": [{"seat": s, "cards": format_cards(cards)} for s, cards in self.trick],
            "previous_trick": []
            if not self.tricks
            else [{"seat": s, "cards": text} for s, text in self.tricks[-1]["plays"]],
            "tricks_played": len(self.tricks),
            "attacker_points": points_data(points),
            "players": [
                {
                    "seat": s,
                    "cards": format_cards(self.hands[s]) if (s == seat or over) else None,
                    "card_count": len(self.hands[s]),
                    "point_cards": format_cards(self.point_cards[s]),
                    "strikes": self.strikes[s],
                    "side": None if self.banker is None else str(self.side(s)),
                }
                for s in range(SEATS)
            ],
            "legal_actions": [] if seat is None else [str(a) for a in self.legal_actions(seat)],
            # Throws (when leading) and, rarely, some follows are legal but not listed.
            "more_plays": seat is not None
            and seat == self.to_act
            and self.phase is Phase.PLAYING
            and not self.plays_listed_completely(seat),
            "kitty_taken": format_cards(self.kitty_received)
            if seat is not None and seat == self.kitty_holder and self.phase is Phase.BURYING
            else None,
            "result": None if self.result is None else self.result.to_dict(),
            "reveal": self._reveal() if over else None,
        }

    def _shown_trump(self, standing: Mapping[str, Any] | None) -> str | None:
        if self.phase in (Phase.PLAYING, Phase.OVER) or self.kitty_turned or standing is None:
            return self.trump
        return standing["trump"]

