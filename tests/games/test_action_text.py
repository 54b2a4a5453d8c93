"""What each game's action parser does with hostile text: refuse it as ``malformed`` with a
short reason, never crash with Python's own error (issue 13, items 9 and 10)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paiju.games import chaodipi, hunzhan, zhajinhua
from paiju.games.engine import IllegalAction
from paiju.quoting import QUOTE_LIMIT, quoted

PARSERS = {
    "zhajinhua": zhajinhua.Action.parse,
    "hunzhan": hunzhan.Action.parse,
    "chaodipi": chaodipi.Action.parse,
}


def refusal(parse, text) -> IllegalAction:
    with pytest.raises(IllegalAction) as refused:
        parse(text)
    assert refused.value.code == "malformed"
    return refused.value


@pytest.mark.parametrize("text", ["raise --5", "compare --1", "raise -5", "compare +1", "raise ٣٠٠", "raise 3_00"])
def test_raise_or_compare_with_a_number_int_cannot_read_is_malformed_not_a_crash(text):
    reason = refusal(zhajinhua.Action.parse, text).reason
    assert "invalid literal" not in reason


def test_a_5000_digit_raise_is_malformed_not_a_crash():
    reason = refusal(zhajinhua.Action.parse, "raise " + "9" * 5000).reason
    assert "digits" not in reason and len(reason) < 200


def test_a_5000_digit_stake_multiple_is_malformed_not_a_crash():
    reason = refusal(chaodipi.Action.parse, "multiple " + "9" * 5000).reason
    assert "int_max_str_digits" not in reason and len(reason) < 200


def test_the_longest_sensible_numbers_still_parse():
    assert zhajinhua.Action.parse("raise 300").stake == 300
    assert zhajinhua.Action.parse("compare 2").target == 2
    assert chaodipi.Action.parse("multiple 2").value == 2


@pytest.mark.parametrize("game", sorted(PARSERS))
@pytest.mark.parametrize("junk", ["x" * 1_000_000, "😀" * 1000, "play " + "5H " * 100_000])
def test_a_megabyte_action_is_refused_quoting_at_most_a_short_prefix(game, junk):
    reason = refusal(PARSERS[game], junk).reason
    assert len(reason) < 100, reason


@pytest.mark.parametrize("game", sorted(PARSERS))
def test_an_unknown_action_quotes_only_the_first_characters_of_it(game):
    junk = "dance" + "z" * 200
    reason = refusal(PARSERS[game], junk).reason
    assert "dance" in reason and "z" * (QUOTE_LIMIT + 1) not in reason and "…" in reason


def test_a_bad_card_among_many_quotes_a_prefix_of_the_cards():
    reason = refusal(hunzhan.Action.parse, "play " + "5H " * 60 + "1H").reason
    assert "5H 5H" in reason and len(reason) < 200


WORDS = st.sampled_from(["raise", "compare", "multiple", "play", "declare", "rob", "bury", "pass", "look",
                         "5H", "BJ", "NT", "--5", "-1", "٣", "9" * 30, "😀", "\x00", " ", "\n"])


@pytest.mark.parametrize("game", sorted(PARSERS))
@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=400), st.lists(WORDS, max_size=12).map(" ".join)))
def test_any_text_parses_or_is_refused_as_malformed_with_a_short_reason(game, text):
    try:
        PARSERS[game](text)
    except IllegalAction as refused:
        assert refused.code == "malformed" and len(refused.reason) < 200, refused.reason


@pytest.mark.parametrize("game", sorted(PARSERS))
def test_bug_a_refusal_quoting_characters_that_repr_escapes_ran_past_its_short_reason(game):
    # Found by the property above in CI: 32 characters quoted, but each escaped as up to ten.
    text = "0000000" + "\x1f" * 10 + "\U00012544" + "\U00018cd6" * 3 + "\U00018d09" * 4
    with pytest.raises(IllegalAction) as refused:
        PARSERS[game](text)
    assert refused.value.code == "malformed" and len(refused.value.reason) < 200, refused.value.reason
    assert len(quoted("\U00018cd6" * 100)) <= QUOTE_LIMIT + 3  # the quotes and the ellipsis
