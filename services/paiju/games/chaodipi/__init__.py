"""炒地皮 Chao Di Pi (Jiangsu Tractor), four players in two teams, two decks: ``spec/chaodipi.md``.

The variants as data, the attackers' points, the level table and the match, the score and
fortune channels, escapes and medals; the card order per hand (:mod:`.order`), trick play
(:mod:`.play`), declaring (:mod:`.declaring`) and the hand's state machine (:mod:`.hand`).

>>> from paiju.games import chaodipi
>>> chaodipi.level_change(points=35)
{'winner': 'banker', 'levels': 2, 'score': 2, 'name': '小光'}
>>> chaodipi.fortune_multiple(banker=(2, 1), attackers=(1, 1), robs=1, points=35, repeat=0)
108
>>> chaodipi.variant_rules("yancheng").laps
3
>>> chaodipi.trick_winner(level="2", trump="S", plays=["5C 4C 4C", "9S 7S 7S", "8S 8S 4S", "AC KC QC"], variant="yangzhou")
2
"""

from paiju.games.chaodipi.actions import TRUMP_CHOICES, Action, ActionKind, Rules
from paiju.games.chaodipi.declaring import kitty_trump, read_declaration
from paiju.games.chaodipi.escape import (
    escape_coin_loss,
    escape_fortune_settlement,
    escape_is_at_least,
    escape_score_loss,
    escape_score_settlement,
)
from paiju.games.chaodipi.fortune import (
    FORTUNE_BASE_STAKES,
    RESULT_FACTORS,
    ChannelKind,
    fortune_multiple,
    fortune_settlement,
    min_coins_to_sit,
    outcome_multiple,
    pay_and_collect,
    score_settlement,
    split_by_multiples,
    stake_multiple,
)
from paiju.games.chaodipi.hand import Game, Hand, Phase, deal_seed, deck_dealing
from paiju.games.chaodipi.judge import is_legal_follow, trick_winner
from paiju.games.chaodipi.levels import (
    HandOutcome,
    MatchState,
    TeamLevel,
    advance,
    final_level,
    is_jack_to_bottom,
    score_changes,
    settle_hand,
    side_of,
    team_of,
)
from paiju.games.chaodipi.medals import MEDAL_LEVELS, MEDAL_THRESHOLDS, medal_for, medal_threshold
from paiju.games.chaodipi.order import FiveTenKing, chaodipi_order, five_ten_king_of
from paiju.games.chaodipi.play import Context
from paiju.games.chaodipi.scoring import (
    POINT_VALUES,
    TOTAL_POINTS,
    AttackerPoints,
    Side,
    SweepName,
    card_points,
    dig_points,
    failed_rob_points,
    failed_throw_points,
    five_ten_king_suits,
    forced_red_fives,
    is_heaven_and_earth,
    level_change,
    red_five_points,
    saved_red_fives,
)
from paiju.games.chaodipi.variants import (
    LEVEL_RANKS,
    VARIANTS,
    Declaration,
    VariantRules,
    variant_rules,
)
from paiju.games.dealing import SYSTEM

__all__ = [
    "FORTUNE_BASE_STAKES",
    "LEVEL_RANKS",
    "MEDAL_LEVELS",
    "MEDAL_THRESHOLDS",
    "POINT_VALUES",
    "RESULT_FACTORS",
    "SYSTEM",
    "TOTAL_POINTS",
    "TRUMP_CHOICES",
    "VARIANTS",
    "Action",
    "ActionKind",
    "AttackerPoints",
    "ChannelKind",
    "Context",
    "Declaration",
    "FiveTenKing",
    "Game",
    "Hand",
    "HandOutcome",
    "MatchState",
    "Phase",
    "Rules",
    "Side",
    "SweepName",
    "TeamLevel",
    "VariantRules",
    "advance",
    "card_points",
    "chaodipi_order",
    "deal_seed",
    "deck_dealing",
    "dig_points",
    "escape_coin_loss",
    "escape_fortune_settlement",
    "escape_is_at_least",
    "escape_score_loss",
    "escape_score_settlement",
    "failed_rob_points",
    "failed_throw_points",
    "final_level",
    "five_ten_king_of",
    "five_ten_king_suits",
    "forced_red_fives",
    "fortune_multiple",
    "fortune_settlement",
    "is_heaven_and_earth",
    "is_jack_to_bottom",
    "is_legal_follow",
    "kitty_trump",
    "level_change",
    "medal_for",
    "medal_threshold",
    "min_coins_to_sit",
    "outcome_multiple",
    "pay_and_collect",
    "read_declaration",
    "red_five_points",
    "saved_red_fives",
    "score_changes",
    "score_settlement",
    "settle_hand",
    "side_of",
    "split_by_multiples",
    "stake_multiple",
    "team_of",
    "trick_winner",
    "variant_rules",
]
