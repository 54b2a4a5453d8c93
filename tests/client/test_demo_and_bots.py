"""The bot table of `make run`, the bots and the `paiju` command."""

from __future__ import annotations

import random

import pytest

from paiju.cli import main
from paiju.client.bots import random_bot, sensible_bot
from paiju.demo import run_table
from paiju.games.zhajinhua import Game, Rules


def test_a_seeded_demo_session_replays_exactly_and_conserves_coins():
    first, second = [], []
    purses = run_table(players=5, hands=30, seed=11, out=first.append)
    run_table(players=5, hands=30, seed=11, out=second.append)
    assert first == second
    assert sum(p.coins for p in purses) == 5 * 20_000
    assert sum("commitment verified" in line for line in first) == 30
    assert not any("DOES NOT MATCH" in line for line in first)


def test_the_demo_stands_up_the_broke_and_closes_the_table():
    lines = []
    run_table(players=2, hands=0, coins=1_500, seed=3, bots="random", out=lines.append)
    assert any("stood up" in line for line in lines)
    assert lines[-2] == "fewer than two players can sit: the table closes"


@pytest.mark.parametrize("bot", [random_bot, sensible_bot])
def test_bots_always_answer_with_a_legal_action(bot):
    rng = random.Random(5)
    game = Game(Rules())
    for _ in range(200):
        hand = game.new_hand(coins=[5_000] * 4, dealer=rng.randrange(4), seed=rng.randbytes(8))
        while hand.to_act is not None:
            view = hand.view(hand.to_act)
            choice = bot(view, rng)
            assert choice in view["legal_actions"]
            hand.apply(hand.to_act, choice)


def test_the_command_runs_a_demo_and_reports_bad_arguments(capsys):
    assert main(["demo", "--hands", "2", "--seed", "1", "--players", "3"]) == 0
    assert "after 2 hands" in capsys.readouterr().out
    assert main(["demo", "--players", "9"]) == 2
    assert "2–5 players" in capsys.readouterr().err
