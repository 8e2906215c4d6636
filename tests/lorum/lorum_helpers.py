"""Helpers shared by the Lorum tests: hand-built deals and explicit action sequences."""

from __future__ import annotations

import random
from collections.abc import Sequence

from arena.games.base import Action
from arena.games.lorum import GAME, LorumState
from arena.games.lorum.cards import RANKS, SUITS


def deal_from(spec: dict[str, str]) -> list[list[str]]:
    """A deal from, per suit, the 8 seat digits of the ranks A K O U 10 9 8 7 in that order.

    ``{"a": "00112233", ...}`` gives seat 0 the acorn Ace and King, seat 1 the Ober and Unter...
    """
    hands: list[list[str]] = [[] for _ in range(4)]
    for suit in SUITS:
        for rank, seat in zip(RANKS, spec[suit], strict=True):
            hands[int(seat)].append(rank + suit)
    assert all(len(hand) == 8 for hand in hands), hands
    return hands


def rotate(spec: dict[str, str], k: int) -> dict[str, str]:
    """The same deal with every hand moved ``k`` seats on (seat i's cards go to seat i + k)."""
    return {suit: "".join(str((int(seat) + k) % 4) for seat in digits) for suit, digits in spec.items()}


def script(dealer: int, *specs: dict[str, str]) -> list[dict]:
    """A chance script: the first dealer, then one hand-built deal per spec."""
    outcomes: list[dict] = [{"kind": "dealer", "value": dealer}]
    outcomes += [{"kind": "deal", "value": deal_from(spec)} for spec in specs]
    return outcomes


def new_game(dealer: int, *specs: dict[str, str], deals: int | None = None) -> LorumState:
    """A game of ``len(specs)`` deals (or ``deals``) with the given first dealer and hand-built deals."""
    return GAME.new_state(seed=12345, options={"deals": deals or len(specs)}, script=script(dealer, *specs))


def run(state: LorumState, actions: str | Sequence[str]) -> None:
    """Apply space-separated calls/cards, each by the seat to move (``|`` separators are ignored)."""
    if isinstance(actions, str):
        actions = [word for word in actions.split() if word != "|"]
    for action in actions:
        (seat,) = state.to_move()
        state.apply(seat, action)


def random_game(seed: int, deals: int = 4, stop: float = 1.0) -> tuple[LorumState, list[tuple[int, Action]]]:
    """Play random legal actions; stop after about ``stop`` of the game's decisions.

    Calls are ``pass`` three times in four (else uniform), so regular games, big and
    small all occur often and some deals run long; cards are uniform.  Returns the
    state and the ``(seat, action)`` list applied.
    """
    state = GAME.new_state(seed, {"deals": deals})
    rng = random.Random(seed ^ 0x5EED)
    actions: list[tuple[int, Action]] = []
    budget = None if stop >= 1.0 else int(stop * 30 * deals)
    while not state.is_over() and (budget is None or len(actions) < budget):
        (seat,) = state.to_move()
        legal = state.legal_actions(seat)
        action = "pass" if state.phase == "bid" and rng.random() < 0.75 else rng.choice(legal)
        state.apply(seat, action)
        actions.append((seat, action))
    return state, actions


# Hand-built deals (see tests): per suit, the seat holding A K O U 10 9 8 7.

ALL_TOP = {suit: "00112233" for suit in SUITS}
"""Seat 0 holds every ace and king: leading them it wins all 8 tricks."""

ALL_BOTTOM = {suit: "33221100" for suit in SUITS}
"""Seat 0 holds every 8 and 7, seat 3 every ace and king."""

OWNERS_K1 = {"a": "00112233", "g": "11223300", "h": "22330011", "b": "33001122"}
"""Each seat holds the top two of one suit; seat 3 owns bells and takes no points (k = 1)."""

OWNERS_K2 = {"a": "00112233", "g": "11003322", "h": "00332211", "b": "11220033"}
"""Seat 0 owns acorns and hearts, seat 1 green and bells: seats 2 and 3 take no points (k = 2)."""

OWNERS_K3 = {"a": "00112233", "g": "00223311", "h": "00331122", "b": "11002233"}
"""Seat 0 owns acorns, green and hearts (all 20 points), seat 1 bells (k = 3)."""

HEARTS_SPLIT_K0 = {"a": "00112233", "g": "11223300", "h": "23001132", "b": "33001122"}
"""The hearts are split between seats 2 and 3, so every seat takes points (k = 0)."""

BIG_LAST = {"a": "00112233", "g": "00112233", "h": "00112233", "b": "01122330"}
"""Seat 0 holds seven sure winners and the bell seven."""

SUITED = {"a": "00000000", "g": "11111111", "h": "22222222", "b": "33333333"}
"""Each seat holds one whole suit: every follower is void."""

# Explicit play sequences for those deals when seat 0 leads (dealer 3).

PLAY_ALL_TOP = "Aa Oa 10a 8a | Ka Ua 9a 7a | Ag Og 10g 8g | Kg Ug 9g 7g | Ah Oh 10h 8h | Kh Uh 9h 7h | Ab Ob 10b 8b | Kb Ub 9b 7b"
PLAY_K1 = "Aa Oa 10a 8a | Ka Ua 9a 7a | 8g Ag Og 10g | Kg Ug 9g 7g | 8h Ah Oh 10h | Kh Uh 9h 7h | 8b Ab Ob 10b | Kb Ub 9b 7b"
PLAY_K2 = "Aa Oa 10a 8a | Ka Ua 9a 7a | Ah 8h 10h Oh | Kh 7h 9h Uh | Og Ag 8g 10g | Kg 7g 9g Ug | Ab Ob 8b 10b | Kb Ub 7b 9b"
PLAY_K3 = "Aa Oa 10a 8a | Ka Ua 9a 7a | Ag 8g Og 10g | Kg 7g Ug 9g | Ah 10h 8h Oh | Kh 9h 7h Uh | Ob Ab 10b 8b | Kb 9b 7b Ub"
PLAY_K0 = "Aa Oa 10a 8a | Ka Ua 9a 7a | 8g Ag Og 10g | Kg Ug 9g 7g | 10h Ah 8h Uh | 7h Kh Oh 9h | Ab Ob 10b 8b | Kb Ub 9b 7b"
