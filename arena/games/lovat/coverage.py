"""Lovat's coverage plan for ``arena check-agent``: its cases, a whole game for most, and a scripted void turn.

Declared by ``LovatGame.coverage_plan``; the machinery (``Scenario``, ``CoveragePlan``) is
``arena.conformance.coverage``.
"""

from __future__ import annotations

from typing import Any

from arena.conformance.coverage import CoveragePlan, Scenario
from arena.games.base import Game
from arena.games.lovat.rules import (
    COLOUR,
    COLOURS,
    COUNTER,
    DECLARE,
    KEEP,
    PASS,
    PLAY,
    PLAY_DECISION,
    VOID,
    keep_compositions,
    level_counts,
)
from arena.games.lovat.state import LovatState

LOVAT_CASES = ("keep", "colour", "declare", "play", "void turn", "die round")
"""Lovat's cases: the keep (L-5), naming a colour, declarations and plays (L-10), discarding on another seat's
void turn (L-12), and any decision in the die round (L-14)."""

VOIDER = 1
"""The seat that empties its hand in the void-turn scenario (the checked agent sits in seat 0)."""
DEALS_TRIED = 64
"""Deals (seeds 0, 1, ...) tried for one on which the void-turn scenario's opening reaches seat 0's discard."""


def _lovat_cases(observation: Any) -> tuple[str, ...]:
    phase = "void turn" if observation.phase == "void" else observation.phase
    return (phase, "die round") if observation.die_round else (phase,)


def _lovat_scenarios(game: Game, players: int) -> tuple[Scenario, ...]:
    whole = Scenario("a whole game", players, {}, (), (), LOVAT_CASES)
    void = _void_turn_scenario(game, players)
    return (whole,) if void is None else (whole, void)


def _void_turn_scenario(game: Game, players: int) -> Scenario | None:
    """A scripted deal and forced opening in which another seat starts its turn with no cards, so that seat 0's
    first free decision is its discard (L-12): the agent's opponents may never empty their hands themselves
    (careful ones keep a card for every turn), and the case would then go unchecked."""
    options = game.info.resolve_options(players, {})
    for seed in range(DEALS_TRIED):
        state = game.new_state(seed, options)
        assert isinstance(state, LovatState)
        prefix = _toward_void_turn(state)
        if prefix is not None:  # the dealer, the deal(s) and any die rolled on the way (the die round comes early
            # with many players): the opening replays exactly whatever the match's seed
            script = tuple(dict(outcome) for outcome in state.chance.log)
            return Scenario("another seat's void turn", players, {}, script, prefix, ("void turn",))
    return None


def _toward_void_turn(state: LovatState) -> tuple[tuple[int, Any], ...] | None:
    """The actions that bring ``state`` to seat 0's discard on ``VOIDER``'s void turn, or None if they do not.

    Every seat keeps as few cards as it may; ``VOIDER`` then says play on every turn and shows its first card,
    the others pass while they hold counters (else play), and the active player names the first colour.
    """
    actions: list[tuple[int, Any]] = []
    while not state.is_over():
        if state.phase == VOID and state.to_move() == (0,):
            return tuple(actions) if state.active == VOIDER else None
        for seat in state.to_move():
            action = _keep(state, seat) if state.phase == KEEP else _choice(state, seat)
            state.apply(seat, action)
            actions.append((seat, action))
    return None


def _keep(state: LovatState, seat: int) -> tuple[str, ...]:
    """The smallest legal keep of ``seat``'s dealt cards: the fewest cards, the lowest ids of each level."""
    dealt = sorted(state.dealt[seat])
    counts = level_counts(dealt)
    a1, a2, a3 = min(keep_compositions(*counts, state.variant), key=sum)
    by_level = ([card for card in dealt if card.startswith(f"L{level}-")] for level in (1, 2, 3))
    return tuple(sorted(card for cards, take in zip(by_level, (a1, a2, a3), strict=True) for card in cards[:take]))


def _choice(state: LovatState, seat: int) -> Any:
    legal = state.legal_actions(seat)
    if state.phase == DECLARE:
        wanted = PLAY_DECISION if seat == VOIDER else PASS
        return wanted if wanted in legal else legal[0]
    if state.phase == COLOUR:
        return COLOURS[0]
    if state.phase == VOID:
        return COUNTER if COUNTER in legal else legal[0]
    assert state.phase == PLAY
    return legal[0]


PLAN = CoveragePlan(LOVAT_CASES, _lovat_cases, _lovat_scenarios)
"""What ``arena check-agent`` drives an agent through at Lovat."""
