"""The luck of a match's chance events along the path actually played (AIVAT's correction for chance).

At every valued chance event of a record (Lovat's die) the match went on from the face that was rolled; it could
as well have gone on from any other face.  ``chance_correction`` values the state after each face with a fixed
function ``v`` and sums, per seat, ``v(rolled) − mean over faces of v(face)``.  Subtracted from a seat's result it
takes out what the rolls were worth, and it cannot favour anyone: the die is fair and rolled after every decision
before it, so given everything up to a roll each face is equally likely and each term has expectation zero,
whatever the agents did and whatever they know of ``v``.

``v`` here is the result of playing the rest of the match from the full state with a fixed reference policy in
every seat (greedy: deterministic).  Chance after the event comes from the record as recorded (the later rolls are
fair and independent of the valued one, so the expectation stays zero), and from the record's seed once it runs out.
A valued event is one whose kind ``faces`` lists, with its equally likely outcomes; a game with no such kind (Lorum:
no chance after the deal) has a correction of zero.  ``match_luck`` is the correction the ``luck`` rating method
subtracts: the chance the game declares (``GameInfo.luck``), valued in seats beaten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games.base import Action, Game, GameState, Observation, Result
from arena.records.record import action_from_json

Policy = Callable[[Observation], Action]
"""The reference policy: an action for the seat that the observation is of (deterministic, for a fixed ``v``)."""

Valuation = Callable[[Result], tuple[float, ...]]
"""What a finished play-out is worth to each seat."""


def scores(result: Result) -> tuple[float, ...]:
    """A play-out's value: each seat's score."""
    return tuple(float(score) for score in result.scores)


def beaten(result: Result) -> tuple[float, ...]:
    """A play-out's value: the seats each seat finished ahead of, a tie counting half (Elo's currency)."""
    ranks = result.ranks
    return tuple(sum(1.0 if rank < other else 0.5 if rank == other else 0.0 for other in ranks) - 0.5
                 for rank in ranks)


def match_luck(game: Game, record: Mapping[str, Any], policy: Policy) -> tuple[float, ...] | None:
    """Per seat, the seats beaten that the chance ``game`` declares (``GameInfo.luck``) was worth in ``record``, the
    reference ``policy`` valuing it; None for a game that declares none (nothing to subtract)."""
    spec = game.info.luck
    if spec is None:
        return None
    return chance_correction(game, record, spec.by_kind(), policy, beaten)


def chance_correction(game: Game, record: Mapping[str, Any], faces: Mapping[str, Sequence[Any]], policy: Policy,
                      value: Valuation) -> tuple[float, ...]:
    """Per seat, the summed ``v(rolled) − mean v(face)`` over the record's valued chance events (0 without any)."""
    total = [0.0] * game.info.resolve_options(None, record.get("options", {}))["players"]
    for term in chance_terms(game, record, faces, policy, value):
        total = [sum_ + part for sum_, part in zip(total, term, strict=True)]
    return tuple(total)


def chance_terms(game: Game, record: Mapping[str, Any], faces: Mapping[str, Sequence[Any]], policy: Policy,
                 value: Valuation) -> list[tuple[float, ...]]:
    """Per valued chance event of ``record``, in order: ``v(rolled) − mean v(face)`` for each entry of ``v``.

    ``record`` is a match record (docs/records.md) with every chance outcome listed, as stored matches have;
    an action that draws a valued outcome is replayed once per face, each with that outcome scripted.
    """
    options = game.info.resolve_options(None, record.get("options", {}))
    state = game.new_state(record["seed"], options, script=record.get("chance", []))
    terms = []
    for entry in record["actions"]:
        seat, action = entry["seat"], action_from_json(entry["action"])
        before = state.clone()
        drawn = len(state.chance.log)
        state.apply(seat, action)
        valued = [index for index, outcome in enumerate(state.chance.log[drawn:]) if outcome["kind"] in faces]
        if len(valued) > 1:
            raise ValueError(f"one action drew {len(valued)} valued chance outcomes; each needs its own state")
        if not valued:
            continue
        outcome = state.chance.log[drawn + valued[0]]
        values = {face: _expected(_after(before, seat, action, valued[0], outcome["kind"], face), faces, policy,
                                  value)
                  for face in faces[outcome["kind"]]}
        means = [sum(column) / len(values) for column in zip(*values.values(), strict=True)]
        terms.append(tuple(got - mean for got, mean in zip(values[outcome["value"]], means, strict=True)))
    return terms


def _after(before: GameState, seat: int, action: Action, position: int, kind: str, face: Any) -> GameState:
    """The state ``action`` leads to from ``before`` when its ``position``-th chance outcome is ``face``.

    The outcomes the record lists after it are dropped: ``v`` averages over every later one instead.
    """
    state = before.clone()
    script = state.chance.script  # the outcomes still to come, the next one last
    if len(script) <= position:
        raise ValueError("the record does not list every chance outcome (stored matches do)")
    script[len(script) - 1 - position] = {"kind": kind, "value": face}
    del script[:len(script) - 1 - position]
    state.apply(seat, action)
    return state


def _expected(state: GameState, faces: Mapping[str, Sequence[Any]], policy: Policy,
              value: Valuation) -> tuple[float, ...]:
    """``v``: the mean value of playing ``state`` to the end with ``policy`` in every seat, over every face of every
    later valued chance event (the other chance, if any, from the state's own seeded generator)."""
    while not state.is_over():
        seat = state.to_move()[0]
        action = policy(state.observation(seat))
        before = state.clone()
        drawn = len(state.chance.log)
        state.apply(seat, action)
        valued = [index for index, outcome in enumerate(state.chance.log[drawn:]) if outcome["kind"] in faces]
        if valued:
            kind = state.chance.log[drawn + valued[0]]["kind"]
            branches = []
            for face in faces[kind]:
                branch = before.clone()
                branch.chance.script = [{"kind": kind, "value": face}]
                if valued[0] != 0:
                    raise ValueError("a valued chance outcome drawn after another outcome in one action")
                branch.apply(seat, action)
                branches.append(_expected(branch, faces, policy, value))
            return tuple(sum(column) / len(branches) for column in zip(*branches, strict=True))
    return value(state.result())
