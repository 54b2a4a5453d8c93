"""炒地皮's deal and declaring (亮主, 反主, 回头望, 暗炒; ``spec/chaodipi.md`` §3): what a
declaration reads as and whether it may be made, its effect, and the close of the window
(trump and banker settled, the kitty turned up, or a redeal)."""

from __future__ import annotations

from collections.abc import Sequence

from paiju.cards import (
    Card,
    format_cards,
)
from paiju.games.chaodipi.actions import Action, ActionKind
from paiju.games.chaodipi.declaring import declaration_options, kitty_trump, read_declaration
from paiju.games.chaodipi.hand_state import (
    HandData,
    Phase,
    private_entry,
    shown_entry,
)
from paiju.games.chaodipi.order import RED_FIVE
from paiju.games.chaodipi.variants import Declaration
from paiju.games.engine import (
    Event,
    IllegalAction,
    require,
)


class DealingAndDeclaring(HandData):
    """The deal's end and the declaring window of a 炒地皮 hand."""

    def _deal_done(self) -> list[Event]:
        if self.flag:
            # 扛旗: no declaring, no kitty; the banker leads at once.
            self.trump = None
            return [Event("deal_done", {"flag_hand": True}), *self._start_play()]
        self.phase = Phase.DECLARING
        return [Event("deal_done", {"declare_window": self.rules.declare_window})]

    def _look_back_single(self, seat: int, cards: Sequence[Card]) -> bool:
        """Whether ``cards`` (a pair) is ``seat``'s 回头望: the pair of a single it showed while
        holding both copies, since overridden by another seat, not yet looked back on."""
        if not self.variant.look_back or len(cards) != 2 or cards[0] != cards[1]:
            return False
        text = str(cards[0])
        for index, entry in enumerate(self.declarations):
            if (
                entry["seat"] == seat
                and entry["kind"] == Declaration.SINGLE
                and entry["cards"] == text
                and entry["had_pair"]
            ):
                later = self.declarations[index + 1 :]
                overridden = any(other["seat"] != seat for other in later)
                done = any(
                    other["seat"] == seat and other["kind"] == Declaration.LOOK_BACK
                    for other in later
                )
                return overridden and not done
        return False

    def _reading(self, seat: int, action: Action) -> tuple[str, str | None]:
        """The kind and trump of a declaration or rob; :class:`IllegalAction` if it is none."""
        cards = action.cards
        assert self.level is not None
        if self._look_back_single(seat, cards):
            kind, trump = str(Declaration.LOOK_BACK), cards[0].suit
        else:
            reading = read_declaration(cards, self.level)
            if reading is None:
                raise IllegalAction(
                    f"{format_cards(cards)} is no declaration: a level card {self.level}, a pair of them, of SJ, of BJ or of 5H",
                    "bad_declaration",
                )
            kind, trump = reading
        if kind == Declaration.RED_FIVE_PAIR:
            require(
                action.choice is not None,
                "a 红5对 names the trump: S, H, C, D or NT",
                "choose_trump",
            )
            trump = None if action.choice == "NT" else action.choice
        else:
            require(action.choice is None, "only a 红5对 names the trump", "bad_declaration")
        return kind, trump

    def verify_declare(self, seat: int, action: Action) -> None:
        self._verify_seat(seat)
        require(not self.flag, "a flag hand is played without declaring", "not_declaring")
        require(
            self.phase in (Phase.DEALING, Phase.DECLARING), "declaring is over", "not_declaring"
        )
        require(
            self._held(seat, action.cards),
            f"seat {seat} has not been dealt {format_cards(action.cards)}",
            "not_held",
        )
        kind, _ = self._reading(seat, action)
        if self.variant.blind_declaring:
            # Decision (暗炒): a seat cannot declare twice in a row, and a single is only a first
            # declaration (everyone knows *that* someone declared); any pair is accepted blind,
            # once per seat and hand, so that blind declaring ends.
            require(
                not self.declarations or self.declarations[-1]["seat"] != seat,
                "your declaration is the last one",
                "own_declaration",
            )
            require(
                kind != Declaration.SINGLE or not self.declarations,
                "a single declares only first",
                "declaration_too_low",
            )
            self._verify_not_shown_blind(seat, action.cards)
            return
        standing = self.standing
        require(
            standing is None or standing["seat"] != seat,
            "your own declaration stands",
            "own_declaration",
        )
        require(
            self.variant.outranks(kind, None if standing is None else standing["kind"]),
            f"{format_cards(action.cards)} does not outrank the standing {standing['cards'] if standing else ''}",
            "declaration_too_low",
        )

    def _verify_not_shown_blind(self, seat: int, cards: Sequence[Card]) -> None:
        """暗炒 Decision (§3): a seat shows each distinct pair blind at most once per hand,
        declaring and robbing together."""
        text = format_cards(cards)
        require(
            not any(entry["seat"] == seat and entry["cards"] == text for entry in self.declarations),
            f"you have shown {text} already in this hand",
            "shown_before",
        )

    def _declaration_actions(self, seat: int, kind: ActionKind) -> list[Action]:
        assert self.level is not None
        actions = []
        for cards in declaration_options(self.hands[seat], self.level):
            if cards[0] == RED_FIVE:
                actions += [Action(kind, cards, choice) for choice in ("S", "H", "C", "D", "NT")]
            else:
                actions.append(Action(kind, cards))
        return actions

    def _declare(self, seat: int, action: Action, stage: str) -> list[Event]:
        kind, trump = self._reading(seat, action)
        standing = self.standing
        effective = self.variant.outranks(kind, None if standing is None else standing["kind"])
        entry = {
            "seat": seat,
            "stage": stage,
            "kind": kind,
            "cards": format_cards(action.cards),
            "trump": trump,
            "effective": effective,
            "had_pair": kind == Declaration.SINGLE and self.hands[seat].count(action.cards[0]) >= 2,
        }
        self.declarations.append(entry)
        name = "declared" if stage == "declare" else "robbed"
        public = {"seat": seat, "stage": stage, "index": len(self.declarations) - 1}
        if self.variant.blind_declaring:
            return [Event(name, public), Event(name + "_blind", private_entry(entry), (seat,))]
        return [Event(name, {**public, **shown_entry(entry)})]

    def _close_declaring(self) -> list[Event]:
        standing = self.standing
        if standing is None and self.banker is None:
            return self._redeal()  # nobody declared in a match's first hand: no banker to take the kitty
        events: list[Event] = []
        if standing is None:
            assert self.level is not None
            self.kitty_turned = True
            self.trump = kitty_trump(self.kitty, self.level)
            self.revealed = True
            events.append(Event("declaring_closed", {"declared": False, "banker": self.banker}))
            events.append(
                Event("kitty_turned", {"kitty": format_cards(self.kitty), "trump": self.trump})
            )
        else:
            if self.banker is None:
                self.banker = standing["seat"]  # 第一局的庄家由翻主方担任
            self.trump = standing["trump"]
            events.append(
                Event(
                    "declaring_closed",
                    {
                        "declared": True,
                        "banker": self.banker,
                        **({} if self.variant.blind_declaring else {"trump": self.trump}),
                    },
                )
            )
        assert self.banker is not None
        return events + self._take_kitty(self.banker)

