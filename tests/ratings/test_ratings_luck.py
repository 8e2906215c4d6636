"""The luck of Lovat's die along the path played (``arena.ratings.luck``): its value and its zero mean."""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games.lorum import GAME as LORUM
from arena.games.lovat import GAME as LOVAT
from arena.games.lovat.rules import FACES
from arena.ratings.luck import LATER, Later, beaten, chance_correction, chance_terms, scores
from arena.records.record import action_from_json
from arena_agents.lovat import GreedyLovatAgent

ROOT = Path(__file__).resolve().parents[2]
DIE = {"die": FACES}
GREEDY = GreedyLovatAgent(seat=0, game=LOVAT.info, players=3, seed=0, options={})  # stateless: any seat


def reference(observation: Any) -> Any:
    """Greedy, the reference policy."""
    return GREEDY.act(observation)


def record_of(game: Any, options: dict[str, Any], seed: int, choose: Any) -> dict[str, Any]:
    """A match of ``game`` on ``seed`` with ``choose(state, seat)`` deciding, as a record."""
    state = game.new_state(seed, options)
    actions = []
    while not state.is_over():
        seat = state.to_move()[0]
        action = choose(state, seat)
        state.apply(seat, action)
        actions.append({"seat": seat, "action": list(action) if isinstance(action, tuple) else action})
    return {"seed": seed, "options": options, "chance": list(state.chance.log), "actions": actions}


def random_choice(rng: random.Random) -> Any:
    """Uniformly random decisions from ``rng``."""
    return lambda state, seat: LOVAT.info.random_action(state.observation(seat), rng)


def played_out(record: dict[str, Any], actions: int, chance: list[dict[str, Any]]) -> tuple[float, ...]:
    """Scores when the record's first ``actions`` are replayed with ``chance`` scripted and greedy plays the rest."""
    state = LOVAT.new_state(record["seed"], record["options"], script=chance)
    for entry in record["actions"][:actions]:
        state.apply(entry["seat"], action_from_json(entry["action"]))
    while not state.is_over():
        seat = state.to_move()[0]
        state.apply(seat, reference(state.observation(seat)))
    return scores(state.result())


def test_the_last_roll_is_valued_exactly_by_greedy_playing_on_from_each_face() -> None:
    record = record_of(LOVAT, {"players": 3}, 11, random_choice(random.Random(3)))
    dice = [index for index, outcome in enumerate(record["chance"]) if outcome["kind"] == "die"]
    assert dice  # random play often leaves the active seat without cards, and a void turn rolls no die (L-12)
    # The action after which the last die is rolled: replaying ever more actions, the first that uses all of it.
    last = next(count for count in range(len(record["actions"]) + 1)
                if len(_replayed(record, count).chance.log) == len(record["chance"]))
    prefix = record["chance"][:dice[-1]]
    values = {face: played_out(record, last, [*prefix, {"kind": "die", "value": face}]) for face in FACES}
    rolled = record["chance"][dice[-1]]["value"]
    expected = [values[rolled][seat] - statistics.fmean(values[face][seat] for face in FACES) for seat in range(3)]
    terms = chance_terms(LOVAT, record, DIE, reference, scores)
    assert len(terms) == len(dice)
    assert terms[-1] == pytest.approx(expected, abs=1e-12)
    # The sum over the seats is not zero in general, but each seat's terms add up to its correction.
    assert chance_correction(LOVAT, record, DIE, reference, scores) == pytest.approx(
        [sum(term[seat] for term in terms) for seat in range(3)], abs=1e-12)


def _replayed(record: dict[str, Any], count: int) -> Any:
    """The state after the record's first ``count`` actions (chance as recorded)."""
    state = LOVAT.new_state(record["seed"], record["options"], script=record["chance"])
    for entry in record["actions"][:count]:
        state.apply(entry["seat"], action_from_json(entry["action"]))
    return state


def test_lorum_has_no_chance_after_the_deal_so_nothing_is_subtracted() -> None:
    rng = random.Random(2)
    record = record_of(LORUM, {"players": 4, "deals": 1}, 3,
                       lambda state, seat: LORUM.info.random_action(state.observation(seat), rng))
    assert chance_correction(LORUM, record, DIE, reference, scores) == (0.0, 0.0, 0.0, 0.0)


def test_a_record_without_its_rolls_is_refused() -> None:
    record = record_of(LOVAT, {"players": 3}, 11, random_choice(random.Random(3)))
    cut = {**record, "chance": [outcome for outcome in record["chance"] if outcome["kind"] != "die"]}
    with pytest.raises(ValueError, match="does not list every chance outcome"):
        chance_terms(LOVAT, cut, DIE, reference, scores)


def test_seats_beaten_count_a_tie_half() -> None:
    from arena.games.base import Result

    assert beaten(Result((3, 1, 3), (1, 3, 1))) == (1.5, 0.0, 1.5)


@pytest.mark.parametrize("value", [scores, beaten])
def test_an_agent_that_plays_the_reference_policy_gains_nothing(value: Any) -> None:
    # Seat 0 plays greedy, the reference itself, so it knows v exactly; the others play at random.  Every seat's
    # mean correction is within noise of zero: the die is rolled after the decisions, and each face is as likely.
    rng = random.Random(9)

    def choose(state: Any, seat: int) -> Any:
        observation = state.observation(seat)
        return reference(observation) if seat == 0 else LOVAT.info.random_action(observation, rng)

    corrections = [chance_correction(LOVAT, record_of(LOVAT, {"players": 3}, seed, choose), DIE, reference, value)
                   for seed in range(60)]
    for seat in range(3):
        column = [correction[seat] for correction in corrections]
        error = statistics.stdev(column) / len(column) ** 0.5
        assert error > 0.02  # the rolls do matter, so a zero mean is not a zero correction
        assert abs(statistics.fmean(column)) < 3.5 * error, (seat, statistics.fmean(column), error)


EXACT = Later(exact=9, samples=1)
"""Every face of every later roll (a Lovat match has at most six)."""


def four_player_records(count: int) -> list[dict[str, Any]]:
    """``count`` 4-player matches, random play, on seeds 0, 1, ...: three rolls can follow the first."""
    options = {"players": 4}
    return [record_of(LOVAT, options, seed, random_choice(random.Random(seed))) for seed in range(count)]


def test_the_method_averages_exactly_over_two_later_rolls_and_samples_the_rest_close_to_exact() -> None:
    # With 3 players at most two rolls follow a roll: the method's v is the exact one.
    record = record_of(LOVAT, {"players": 3}, 11, random_choice(random.Random(3)))
    assert chance_terms(LOVAT, record, DIE, reference, beaten) == chance_terms(LOVAT, record, DIE, reference,
                                                                                beaten, EXACT)
    # With 4, the third roll after the first is sampled: a small difference from the exact correction, whose own
    # size is many times it.
    players, records, apart, size = 4, four_player_records(6), [], []
    greedy = [GreedyLovatAgent(seat=seat, game=LOVAT.info, players=players, seed=0, options={})
              for seat in range(players)]

    def policy(observation: Any) -> Any:
        return greedy[observation.seat].act(observation)

    for record in records:
        sampled, exact = (chance_correction(LOVAT, record, DIE, policy, beaten, later) for later in (LATER, EXACT))
        apart += [abs(a - b) for a, b in zip(sampled, exact, strict=True)]
        size += [abs(value) for value in exact]
    assert 0 < statistics.fmean(apart) < statistics.fmean(size) / 5, (statistics.fmean(apart), statistics.fmean(size))


def test_a_sampled_correction_is_the_same_in_another_process() -> None:
    # The generators are seeded from the record alone (not from Python's per-process string hashing).
    record = four_player_records(1)[0]
    later = Later(exact=0, samples=2)
    here = chance_correction(LOVAT, record, DIE, reference, scores, later)
    code = ("import json, sys; from tests.ratings.test_ratings_luck import *; "
            "print(json.dumps(chance_correction(LOVAT, json.loads(sys.stdin.read()), DIE, reference, scores, "
            "Later(exact=0, samples=2))))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(record), capture_output=True, text=True,
                          env={**os.environ, "PYTHONHASHSEED": "12345"}, cwd=ROOT, check=True, timeout=120)
    assert tuple(json.loads(done.stdout)) == here and any(here)


def test_later_needs_a_sensible_plan() -> None:
    for exact, samples in ((-1, 1), (2, 0)):
        with pytest.raises(ValueError, match="Later needs exact >= 0 and samples >= 1"):
            Later(exact=exact, samples=samples)
