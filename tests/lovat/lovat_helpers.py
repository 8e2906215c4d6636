"""Helpers shared by the Lovat tests: hand-built deals, scripted games and a random driver."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.games.lovat import GAME, LovatState
from arena.games.lovat.deck import CARD_IDS, LEVEL, LEVEL_COUNT
from arena.games.lovat.state import KEEP, VARIANTS
from arena_agents.lovat import random_keep


def fill_deal(players: int, fixed: Mapping[int, Sequence[str]]) -> list[list[str]]:
    """A deal giving each seat its ``fixed`` cards, topped up with unused cards with the levels interleaved.

    The top-up order spreads the levels in proportion (about 4 level-1 : 3 level-2 : 1 level-3),
    so every topped-up hand has a mix of levels and admits small keeps.
    """
    dealt = VARIANTS[players].dealt
    used = {card_id for cards in fixed.values() for card_id in cards}
    assert len(used) == sum(len(cards) for cards in fixed.values()), "a card is fixed twice"
    position = {card_id: int(card_id[3:]) / LEVEL_COUNT[LEVEL[card_id]] for card_id in CARD_IDS}
    spare = sorted((card_id for card_id in CARD_IDS if card_id not in used), key=lambda c: (position[c], c))
    hands = []
    for seat in range(players):
        hand = list(fixed.get(seat, ()))
        while len(hand) < dealt:
            hand.append(spare.pop(0))
        assert len(hand) == dealt, f"seat {seat} is fixed {len(hand)} cards, more than {dealt}"
        hands.append(hand)
    return hands


def script(dealer: int, *deals: Sequence[Sequence[str]], dice: Iterable[str] = ()) -> list[dict[str, Any]]:
    """A chance script: the dealer, one or more deals (misdeals first), then die faces."""
    return (
        [{"kind": "dealer", "value": dealer}]
        + [{"kind": "deal", "value": [list(hand) for hand in deal]} for deal in deals]
        + [{"kind": "die", "value": face} for face in dice]
    )


def keep_with(dealt: Sequence[str], must: Sequence[str], players: int) -> tuple[str, ...]:
    """A legal keep from ``dealt`` containing ``must``, completed preferring high levels (few cards, so counters)."""
    variant = VARIANTS[players]
    rest = sorted((card_id for card_id in dealt if card_id not in must), key=lambda c: (-LEVEL[c], c))

    def search(start: int, chosen: list[str]) -> list[str] | None:
        total = sum(LEVEL[card_id] for card_id in chosen)
        if total == variant.level_sum and variant.min_keep <= len(chosen) <= variant.max_keep:
            return chosen
        if total >= variant.level_sum or len(chosen) >= variant.max_keep:
            return None
        for index in range(start, len(rest)):
            found = search(index + 1, chosen + [rest[index]])
            if found is not None:
                return found
        return None

    found = search(0, list(must))
    assert found is not None, f"no legal keep of {list(dealt)} contains {list(must)}"
    return tuple(sorted(found))


def run(state: LovatState, actions: Iterable[tuple[int, Any]]) -> LovatState:
    """Apply ``(seat, action)`` pairs in order."""
    for seat, action in actions:
        state.apply(seat, action)
    return state


def random_action(state: LovatState, seat: int, rng: random.Random) -> Any:
    """A uniformly random legal action for ``seat`` (a uniform random keep in the keep phase)."""
    if state.phase == KEEP:
        variant = state.variant
        return random_keep(state.dealt[seat], variant.level_sum, variant.min_keep, variant.max_keep, rng)
    return rng.choice(state.legal_actions(seat))


def play_random(seed: int, players: int, stop: int | None = None) -> tuple[LovatState, list[tuple[int, Any]]]:
    """A game among uniform random players; stops after ``stop`` actions if given."""
    state = GAME.new_state(seed, {"players": players})
    rng = random.Random(seed ^ 0x5EED)
    actions: list[tuple[int, Any]] = []
    while not state.is_over() and (stop is None or len(actions) < stop):
        for seat in state.to_move():
            if stop is not None and len(actions) >= stop:
                break
            action = random_action(state, seat, rng)
            state.apply(seat, action)
            actions.append((seat, action))
    return state, actions


# -- the 3-player story used by several ruling tests ------------------------------------------------
#
# Dealer 2, so seat 0 is first (L-2).  Keeps (L-5, 3 players: levels 9, 5-9 cards, 3 counters discarded):
#   seat 0 keeps nine level-1 cards -> 0 counters: it must play every turn (L-11);
#   seat 1 keeps L3-06 L2-01 L2-02 L1-01 L1-02 (5 cards, 4 counters) and plays them all by turn 5,
#     so it must pass afterwards (L-11) and its own turn 8 is a void turn (L-12);
#   seat 2 keeps L3-07 L3-08 L1-03 L1-04 L1-05 (5 cards, 4 counters).
# Dice (L-14, the third round is turns 7-9, 0-based 6-8): blank on turn 7, none on the void turn 8,
# zaffre on turn 9.

STORY_KEEPS = {
    0: ("L1-06", "L1-07", "L1-08", "L1-09", "L1-10", "L1-11", "L1-12", "L1-13", "L1-14"),
    1: ("L1-01", "L1-02", "L2-01", "L2-02", "L3-06"),
    2: ("L1-03", "L1-04", "L1-05", "L3-07", "L3-08"),
}
STORY_DEAL = fill_deal(3, STORY_KEEPS)
STORY_SCRIPT = script(2, STORY_DEAL, dice=("blank", "zaffre"))

# One list of actions per 0-based turn.
STORY_TURNS: list[list[tuple[int, Any]]] = [
    # turn 0, active 0: gingerline; 1 plays, 2 passes; 0 L1-06 (26) beats 1 L1-01 (22)
    [(0, "gingerline"), (1, "play"), (2, "pass"), (0, "L1-06"), (1, "L1-01")],
    # turn 1, active 1: rufous; 2 passes, 0 must play; 1 L3-06 (50) beats 0 L1-07 (26)
    [(1, "rufous"), (2, "pass"), (0, "play"), (1, "L3-06"), (0, "L1-07")],
    # turn 2, active 2: skobeloff; both play; 2 L3-07 (50) beats L1-08 (26) and L1-02 (2)
    [(2, "skobeloff"), (0, "play"), (1, "play"), (2, "L3-07"), (0, "L1-08"), (1, "L1-02")],
    # turn 3, active 0: zaffre; both play; 2 L3-08 (50) beats L1-09 (26) and L2-01 (11)
    [(0, "zaffre"), (1, "play"), (2, "play"), (0, "L1-09"), (1, "L2-01"), (2, "L3-08")],
    # turn 4, active 1: phlox; 2 passes, 0 plays; 0 L1-10 (26) beats 1 L2-02 (11); seat 1 is out of cards
    [(1, "phlox"), (2, "pass"), (0, "play"), (1, "L2-02"), (0, "L1-10")],
    # turn 5, active 2: rufous; 0 must play, 1 must pass; 2 L1-03 (12) beats 0 L1-11 (6)
    [(2, "rufous"), (0, "play"), (1, "pass"), (2, "L1-03"), (0, "L1-11")],
    # turn 6 (die round), active 0: die blank, 0 names skobeloff; 1 must pass; 0 L1-13 (21) beats 2 L1-04 (12)
    [(0, "skobeloff"), (1, "pass"), (2, "play"), (0, "L1-13"), (2, "L1-04")],
    # turn 7, active 1 has no cards: void turn; 2 discards a counter, 0 (no counters) a card
    [(2, "counter"), (0, "L1-12")],
    # turn 8, active 2: die zaffre; 0 must play, 1 must pass; 0 L1-14 (21) beats 2 L1-05 (12)
    [(0, "play"), (1, "pass"), (2, "L1-05"), (0, "L1-14")],
]


def story(turns: int = 0, seed: int = 0) -> LovatState:
    """The story game after the keeps and ``turns`` complete turns."""
    state = GAME.new_state(seed, {"players": 3}, script=STORY_SCRIPT)
    run(state, sorted(STORY_KEEPS.items()))
    for actions in STORY_TURNS[:turns]:
        run(state, actions)
    return state


def story_actions() -> list[tuple[int, Any]]:
    """Every action of the story game, keeps first."""
    return sorted(STORY_KEEPS.items()) + [action for turn in STORY_TURNS for action in turn]
