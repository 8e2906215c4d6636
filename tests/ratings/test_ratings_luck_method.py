"""The luck method (``arena.ratings.luck_adjusted``): what it subtracts, when it refuses, and why no agent gains."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from arena import ratings
from arena.games.lovat import FACES
from arena.games.lovat import GAME as LOVAT
from arena.ratings.data import MatchOutcome
from arena.ratings.luck import Later, beaten, chance_correction, match_luck
from arena.ratings.luck_adjusted import MissingLuck
from arena_agents.lovat import GreedyLovatAgent

GREEDY = [GreedyLovatAgent(seat=seat, game=LOVAT.info, players=3, seed=0, options={}) for seat in range(3)]


def reference(observation: Any) -> Any:
    """Lovat's declared reference, greedy, in every seat."""
    return GREEDY[observation.seat].act(observation)


def outcomes(luck: bool | None) -> list[MatchOutcome]:
    """Three agents in six blocks of three rotations; each match with a correction (``luck``), or none."""
    found = []
    for block in range(6):
        for rotation in range(3):
            agents = tuple(("a", "b", "c")[(seat + rotation) % 3] for seat in range(3))
            ranks = (1, 2, 2) if block % 2 else (1, 2, 3)
            correction = tuple(0.1 * "abc".index(agent) - 0.05 * block for agent in agents) if luck else None
            found.append(MatchOutcome(f"m{block}-{rotation}", f"b{block}", agents, (3, 2, 1), ranks, luck=correction))
    return found


def test_lovat_values_its_die_with_greedys_play_outs() -> None:
    assert LOVAT.info.luck is not None and LOVAT.info.luck.by_kind() == {"die": FACES}
    assert LOVAT.info.luck.reference == "greedy"


def test_the_rating_is_the_mean_of_seats_beaten_less_the_correction() -> None:
    given = outcomes(luck=True)
    table = ratings.fit(given, "luck", chance="a test die")
    for agent in "abc":
        values = [sum((mine < other) + 0.5 * (mine == other) for other in o.ranks) - 0.5 - (o.luck or ())[seat]
                  for o in given for seat, (name, mine) in enumerate(zip(o.agents, o.ranks)) if name == agent]
        assert table[agent].rating == pytest.approx(statistics.fmean(values))
    raw = ratings.fit(outcomes(luck=None), "luck")
    assert raw["a"].rating != table["a"].rating
    note = table.extras["subtracted"]
    assert note.startswith("luck: a test die subtracted, in seats beaten; mean correction per agent: a ")
    assert "nothing subtracted" in raw.extras["subtracted"] and "less its chance luck" not in raw.scale


def test_matches_without_a_correction_are_refused_when_the_game_values_chance_or_some_have_one() -> None:
    with pytest.raises(MissingLuck, match="18 of 18 matches carry no luck correction"):
        ratings.fit(outcomes(luck=None), "luck", chance="a test die")
    mixed = outcomes(luck=True)[:9] + outcomes(luck=None)[9:]
    with pytest.raises(MissingLuck, match="9 of 18 matches"):
        ratings.fit(mixed, "luck")


def die_paths(seed: int, choose: Any) -> list[tuple[float, dict[str, Any]]]:
    """Every way the die can fall in the match on deal ``seed`` (``choose`` deciding, as for ``play``), each with its
    probability and its record: the match is played again with each face of each roll scripted in turn."""
    first = play(seed, [], choose)
    prefix = [outcome for outcome in first["chance"] if outcome["kind"] != "die"]  # the dealer and the deal(s)
    leaves: list[tuple[float, dict[str, Any]]] = []
    paths: list[tuple[str, ...]] = [()]
    while paths:
        path = paths.pop()
        record = play(seed, [*prefix, *({"kind": "die", "value": face} for face in path)], choose)
        if sum(outcome["kind"] == "die" for outcome in record["chance"]) > len(path):  # it needed one more roll
            paths += [(*path, face) for face in FACES]
        else:
            leaves.append((6.0 ** -len(path), record))
    return leaves


def play(seed: int, script: list[dict[str, Any]], choose: Any) -> dict[str, Any]:
    """The match on deal ``seed`` with ``script``'s chance outcomes, as a record; ``choose(state, seat, step)``
    decides (a function of the history, so that every path that shares a history shares its decisions)."""
    state = LOVAT.new_state(seed, {"players": 3}, script=script)
    actions: list[dict[str, Any]] = []
    while not state.is_over():
        seat = state.to_move()[0]
        action = choose(state, seat, len(actions))
        state.apply(seat, action)
        actions.append({"seat": seat, "action": list(action) if isinstance(action, tuple) else action})
    return {"seed": seed, "options": {"players": 3}, "chance": list(state.chance.log), "actions": actions}


def knows_the_reference(state: Any, seat: int, step: int) -> Any:
    """Seat 0 plays greedy, the reference itself: it knows exactly what every state is worth to the correction.
    The others play at random (seeded by the decision's place, so each is a function of what came before), so the
    paths differ after every roll."""
    observation = state.observation(seat)
    return reference(observation) if seat == 0 else LOVAT.info.random_action(observation, random.Random(step))


@pytest.mark.parametrize("later", [None, Later(exact=0, samples=2), Later(exact=1, samples=1)],
                         ids=["the method's", "sampled from the next roll on", "sampled after one exact roll"])
def test_an_agent_that_knows_the_reference_gains_nothing_over_every_fall_of_the_die(later: Later | None) -> None:
    # Summed over every way the die can fall, each weighted by its probability, each seat's correction is zero:
    # not within noise, exactly.  With 3 players the method's v is exact (two rolls at most follow a roll); the
    # sampled ones draw later faces from generators seeded from the deal and the roll's place, the same for every
    # face of the roll, so each is a fixed function of the state and its terms still sum to zero over the faces.
    leaves = die_paths(24, knows_the_reference)  # a deal on which some faces lead to a void turn (no die, L-12)
    assert {len(record["chance"]) for _weight, record in leaves} == {4, 5} and sum(weight for weight, _record in leaves) == pytest.approx(1.0)
    found = [(weight, match_luck(LOVAT, record, reference) if later is None
              else chance_correction(LOVAT, record, {"die": FACES}, reference, beaten, later))
             for weight, record in leaves]
    for seat in range(3):
        assert max(abs(luck[seat]) for _weight, luck in found if luck) > 0.1  # the rolls do matter...
        assert sum(weight * luck[seat] for weight, luck in found if luck) == pytest.approx(0.0, abs=1e-12)  # ...not


def test_a_correction_that_is_not_one_finite_number_per_seat_is_refused() -> None:
    bad = [MatchOutcome("m", "b", ("a", "b", "c"), (3, 2, 1), (1, 2, 3), luck=(0.5, float("nan"), 0.0))]
    with pytest.raises(ValueError, match="match 'm': its luck correction must be one finite number per seat"):
        ratings.fit(bad, "luck")
