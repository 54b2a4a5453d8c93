"""Paiju (牌局): an authoritative game server for Chinese card games.

``paiju.cards`` holds the card notation and fair shuffles; ``paiju.games`` the rule engines,
pure state machines with no I/O, clock or global randomness.
"""

__version__ = "0.1.0"
