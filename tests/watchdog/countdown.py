"""A small fake trick-like game for platform tests: timeouts play a default move, the table
counts strikes, and leaving is an escape with a penalty — without the weight of a real game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paiju.games.engine import BaseHand, Event, LedgerLine, Settlement, require
from paiju.games.registry import GameSpec, Tier, register_game

MOVES_PER_HAND = 12
ESCAPE_PENALTY = 30


class Say(str):
    """A countdown move is its word: "tick" or "tock"."""

    @classmethod
    def coerce(cls, action: object) -> str:
        return str(action)


class Countdown(BaseHand):
    GAME = "countdown"
    ACTION = Say

    def __init__(self, players: int, dealer: int) -> None:
        self.players = players
        self.to_act: int | None = (dealer + 1) % players
        self.moves: list[tuple[int, str]] = []
        self.turn_number = 1
        self.result: Settlement | None = None
        self.opening_events = [Event("turn", {"seat": self.to_act})]

    def legal_actions(self, seat: int) -> list[str]:
        return ["tick", "tock"] if seat == self.to_act else []

    def max_loss(self, seat: int) -> int:
        return max(ESCAPE_PENALTY, 10) * self.players

    def _verify(self, seat: int, action: str) -> None:
        require(self.result is None, "the hand is over", "hand_over")
        require(seat == self.to_act, f"it is seat {self.to_act}'s turn", "not_your_turn")
        require(action in ("tick", "tock"), f"say tick or tock, not {action!r}", "malformed")

    def start_record(self) -> None:
        return None  # no seed, no log: its hands are not kept for a history

    def apply(self, seat: int, action: str) -> list[Event]:
        self.verify_action(seat, action)
        self.moves.append((seat, action))
        events = [Event("moved", {"seat": seat, "move": action})]
        if len(self.moves) == MOVES_PER_HAND:
            return events + self._end(winner=seat)
        self.to_act = (seat + 1) % self.players
        self.turn_number += 1
        return events + [Event("turn", {"seat": self.to_act})]

    def timeout(self) -> list[Event]:
        return self.apply(self.to_act, "tick")  # type: ignore[arg-type]

    def leave(self, seat: int) -> list[Event]:
        require(self.result is None, "the hand is over", "hand_over")
        lines = [LedgerLine(seat, -ESCAPE_PENALTY * (self.players - 1), "escape_penalty")]
        lines += [LedgerLine(other, ESCAPE_PENALTY, "escape_penalty") for other in range(self.players) if other != seat]
        return self._settle(lines, winners=tuple(o for o in range(self.players) if o != seat), how="escape")

    def _end(self, winner: int) -> list[Event]:
        lines = [LedgerLine(winner, 10 * (self.players - 1), "pot")]
        lines += [LedgerLine(other, -10, "stake") for other in range(self.players) if other != winner]
        return self._settle(lines, winners=(winner,), how="played_out")

    def _settle(self, lines: list[LedgerLine], winners: tuple[int, ...], how: str) -> list[Event]:
        net = [0] * self.players
        for line in lines:
            net[line.seat] += line.amount
        self.result = Settlement(tuple(net), tuple(lines), winners=winners, details={"how": how})
        self.to_act = None
        return [Event("hand_over", {"coins": net, "how": how})]

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"game": self.GAME, "seat": seat, "to_act": self.to_act, "moves": self.moves,
                "legal_actions": [] if seat is None else self.legal_actions(seat),
                "result": None if self.result is None else self.result.to_dict()}

    def to_data(self) -> dict[str, Any]:
        return {"players": self.players, "to_act": self.to_act, "moves": [list(m) for m in self.moves],
                "turn_number": self.turn_number, "result": None if self.result is None else self.result.to_dict()}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Countdown:
        state = cls(data["players"], 0)
        state.to_act = data["to_act"]
        state.moves = [tuple(m) for m in data["moves"]]  # type: ignore[misc]
        state.turn_number = data["turn_number"]
        state.result = None if data["result"] is None else Settlement.from_dict(data["result"])
        return state


def register() -> None:
    register_game(GameSpec(
        name="countdown",
        title="countdown (test game)",
        min_players=2,
        max_players=4,
        tiers=(Tier("free", "test", 0, 10),),
        start_hand=lambda rules, coins, dealer, seed, carry: Countdown(len(coins), dealer),
        load_hand=Countdown.from_bytes,
        waits_for_disconnected=True,
        strikes_to_escape=4,
    ))
