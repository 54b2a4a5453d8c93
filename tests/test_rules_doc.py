"""docs/rules.md says what the server does: every registered game, tier and 炒地皮 variant has its
rules there, and the doc's tables (hand ranks, floating ante, tiers, declaration orders, level
changes, worked settlements) agree with the rules code, so adding a game, tier or variant
without its rules, or changing a figure without the doc, fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paiju.games import hunzhan
from paiju.games.chaodipi.fortune import fortune_multiple, split_by_multiples
from paiju.games.chaodipi.medals import MEDAL_LEVELS, medal_threshold
from paiju.games.chaodipi.scoring import level_change
from paiju.games.chaodipi.variants import VARIANTS, Declaration
from paiju.games.hunzhan.settlement import settle, settle_escape
from paiju.games.registry import game_names, game_spec
from paiju.games.zhajinhua.actions import Rules as ZhajinhuaRules
from paiju.games.zhajinhua.hand import Game as ZhajinhuaGame
from paiju.games.zhajinhua.hand import deck_dealing
from paiju.games.zhajinhua.ranking import CATEGORIES, hand_category
from paiju.games.zhajinhua.rooms import FLOATING_ANTE
from paiju.table.deadline_names import Timers

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")


def table_under(heading: str, number: int = 0) -> list[list[str]]:
    """The body rows (cells stripped) of the ``number``-th table after the line ``heading``."""
    lines = TEXT.split(f"\n{heading}\n", 1)[1].splitlines()
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in lines:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            current.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables[number][2:]  # past the header and the |---| line


def coded(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def number(cell: str) -> int:
    """An integer as the doc writes it: ``1,010``, ``−300``, ``+294``."""
    return int(cell.replace(",", "").replace("−", "-").replace("+", ""))


def test_every_registered_game_is_named_in_the_rules():
    assert game_names(), "no games registered"
    missing = [name for name in game_names() if f"(`{name}`" not in TEXT]
    assert not missing, f"docs/rules.md has no section for {missing}"


def test_the_tier_table_lists_every_tier_with_its_minimum_coins():
    documented = {tier: number(row[2]) for row in table_under("## Tiers: where a player may sit")
                  for tier in coded(row[1])}
    registered = {tier.name: tier.min_coins for name in game_names() for tier in game_spec(name).tiers}
    assert documented == registered


def test_every_chaodipi_variant_has_a_row_of_its_own_rules():
    rows = table_under("### The four variants")
    assert [coded(row[0])[0] for row in rows] == list(VARIANTS)


DECLARATION_TEXT = {
    Declaration.CLUBS_PAIR: "♣对", Declaration.DIAMONDS_PAIR: "♦对", Declaration.SPADES_PAIR: "♠对",
    Declaration.HEARTS_PAIR: "♥对", Declaration.SMALL_JOKER_PAIR: "小王对",
    Declaration.BIG_JOKER_PAIR: "大王对", Declaration.RED_FIVE_PAIR: "红5对", Declaration.LOOK_BACK: "回头望",
}


def test_each_variant_s_declaration_order_is_the_code_s():
    written: dict[str, list[str]] = {}
    for row in table_under("### The four variants"):
        variant, order = coded(row[0])[0], row[2]
        if order.startswith("as "):  # "as `yangzhou`" or "as `yangzhou`, then 回头望"
            base, _, extra = order.partition(", then ")
            written[variant] = written[coded(base)[0]] + ([extra] if extra else [])
        else:
            written[variant] = [step.strip() for step in order.split("<")]
    for variant, rules in VARIANTS.items():
        assert written[variant] == [DECLARATION_TEXT[step] for step in rules.declaration_order], variant


def test_zhajinhua_hand_ranks_are_the_ranking_code_s_categories_high_to_low():
    rows = table_under("### Hand ranks (牌型)")
    assert [coded(row[2])[0] for row in rows] == list(reversed(CATEGORIES))
    for row in rows:
        assert hand_category(coded(row[3])[0]) == coded(row[2])[0], row


def test_zhajinhua_floating_ante_table_is_the_code_s():
    rows = table_under("### Ante (底注) and the floating ante")
    written = [(number(re.split(r" – | and ", row[0])[0]), number(row[1])) for row in rows]
    assert written == list(FLOATING_ANTE)


def test_zhajinhua_worked_example_is_what_the_engine_pays():
    # A deals (seat 0); B holds a pair, C the 顺金 that wins; coins floating the ante to 10.
    hand = ZhajinhuaGame(ZhajinhuaRules()).new_hand(
        coins=[2000] * 3, dealer=0, seed=b"rules doc",
        deck=deck_dealing(["AS KD 7C", "8S 8D KC", "QH JH TH"]))
    assert (hand.ante, hand.pot) == (10, 30)
    for seat, move in [(1, "call"), (2, "look"), (2, "call"), (0, "raise 20"), (1, "fold"), (2, "open")]:
        hand.apply(seat, move)
    assert hand.pot == 160
    written = [number(row[4]) for row in table_under("### Worked example")]
    assert list(hand.result.coins) == written


def hunzhan_example(heading: str) -> tuple[list[int], list[list[int]]]:
    rows = table_under(heading, number=0)
    points = [number(row[1]) for row in rows]
    return points, [[number(cell) for cell in row[2:]] for row in rows]


def test_hunzhan_worked_settlement_is_what_the_server_settles():
    stake = game_spec("hunzhan").tier("stake100").base_stake
    points, written = hunzhan_example("**Worked example** (`stake100`):")
    rows = settle(points, coins_per_5=stake, fee_rate=hunzhan.Rules().fee_rate)
    assert [[row["result"], row["coins"] + row["fee"], row["fee"], row["coins"]] for row in rows] == written


def test_hunzhan_worked_escape_is_what_the_server_settles():
    stake = game_spec("hunzhan").tier("stake100").base_stake
    points, written = hunzhan_example("**Worked example** (`stake100`, A escapes):")
    rows = settle_escape(points, escaper=0, coins_per_5=stake, fee_rate=hunzhan.Rules().fee_rate)
    assert [[row["result"], row["coins"] + row["fee"], row["fee"], row["coins"]] for row in rows] == written


def test_hunzhan_fee_rate_is_the_one_the_doc_gives():
    assert f"{hunzhan.Rules().fee_rate:.0%} (`fee_rate`)" in TEXT


@pytest.mark.parametrize("row", table_under("### Level change (升级 level up), by the attackers' final points P"),
                         ids=lambda row: row[0])
def test_chaodipi_level_change_row_is_the_code_s(row: list[str]):
    ends = [number(end) for end in row[0].split("–")]
    for points in ends:
        change = level_change(points)
        assert change["winner"] == ("banker" if row[1].startswith("banker") else "attackers")
        assert (change["levels"], change["score"]) == (number(row[2]), number(row[3]))
        assert (change["name"] or "") == row[4].split(" ")[0]


def test_chaodipi_fortune_worked_example_is_what_the_code_computes():
    n = fortune_multiple(banker=(2, 1), attackers=(1, 1), robs=1, points=35, repeat=0)
    assert f"= {n}; X × N = {10 * n:,} coins" in TEXT
    winners = split_by_multiples(10 * n, {0: 2, 2: 1})
    losers = split_by_multiples(10 * n, {1: 1, 3: 1})
    written = [number(row[2]) for row in table_under("N = (2 + 1) × (1 + 1) × 2 × 3 × 3 × 1 = 108; X × N = 1,080 coins.")]
    assert written == [winners[0], winners[2], -losers[1], -losers[3]]


def test_chaodipi_fortune_medals_are_the_code_s():
    assert f"{MEDAL_LEVELS} levels" in TEXT
    assert f"level 2: {medal_threshold(2):,}" in TEXT
    assert f"level {MEDAL_LEVELS}: {medal_threshold(MEDAL_LEVELS):,}" in TEXT


def test_platform_timers_are_the_table_s():
    timers = Timers()
    assert f"has **{timers.ready_kick_ms // 1000} s** to press start" in TEXT
    assert f"**{timers.turn_ms // 1000} s** per turn" in TEXT
    assert f"held **{timers.reconnect_ms // 1000} s**" in TEXT
    assert hunzhan.Rules().timeouts_to_escape == 4 and "**fourth timeout in a row**" in TEXT
