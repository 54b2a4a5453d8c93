"""Each benchmark figure beside its target and whether it is met, so that a regression shows in
``make bench`` the day it lands.

>>> beside(310, 300)
'(target >= 300: met)'
>>> beside(2.4, 2, at_most=True, unit=" ms")
'(target <= 2 ms: NOT met)'
"""

from __future__ import annotations


def beside(figure: float, target: float, *, at_most: bool = False, unit: str = "") -> str:
    """The target of ``figure`` (at least ``target``, or at most with ``at_most``) and its verdict."""
    met = figure <= target if at_most else figure >= target
    return f"(target {'<=' if at_most else '>='} {target:,g}{unit}: {'met' if met else 'NOT met'})"
