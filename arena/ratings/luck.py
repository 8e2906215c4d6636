"""The luck of a match's chance events along the path actually played (AIVAT's correction for chance).

At every valued chance event of a record (Lovat's die) the match went on from the face that was rolled; it could
as well have gone on from any other face.  ``chance_correction`` values the state after each face with a function
``v`` and sums, per seat, ``v(rolled) − mean over faces of v(face)``.  Subtracted from a seat's result it takes out
what the rolls were worth, and it cannot favour anyone: the die is fair and rolled after every decision before it,
so given everything up to a roll each face is equally likely and each term has expectation zero, whatever the
agents did and whatever they know of ``v``.  That holds for any ``v`` fixed before the roll, exact or estimated.

``v`` here is the result of playing the rest of the match from the full state with a fixed reference policy in
every seat (greedy: deterministic), averaged over the later valued events as ``Later`` says: every face of the
next ``exact`` of them, and beyond those ``samples`` continuations per combination of their faces, each drawing
the faces after them from a generator of its own.  The generators are seeded from the record's seed, the valued
event's place among the record's and the combination alone, never from a face rolled at or after the valued
event: so all of its faces meet the same later faces (common random numbers: their differences are not swamped
by the sampling), and ``v`` is a fixed function of the state when the face is rolled, which keeps each term's
expectation exactly zero.  The same record gives the same correction in any process.  Other chance after the event
(none in Lovat's die round) comes from the state's own seeded generator.  A valued event is one whose kind
``faces`` lists, with its equally likely outcomes; a game with no such kind (Lorum: no chance after the deal) has
a correction of zero.  ``match_luck`` is the correction the ``luck`` rating method subtracts: the chance the game
declares (``GameInfo.luck``), valued in seats beaten.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.base import Action, Game, GameState, Observation, Result
from arena.records.record import action_from_json

Policy = Callable[[Observation], Action]
"""The reference policy: an action for the seat that the observation is of (deterministic, for a fixed ``v``)."""

Valuation = Callable[[Result], tuple[float, ...]]
"""What a finished play-out is worth to each seat."""


@dataclass(frozen=True, slots=True)
class Later:
    """How ``v`` averages over the valued chance events after the one it values.

    Every face of the next ``exact`` of them (their combinations are cheap while few), then, for each combination
    of those faces, ``samples`` continuations that draw each face after them from a generator of their own.  With
    ``exact`` at least the events a match can have left, ``v`` is the exact mean over every later face.
    """

    exact: int  # later valued events averaged over every face (6 ** exact combinations of Lovat's die)
    samples: int  # continuations per combination beyond them, each with faces drawn from its own generator

    def __post_init__(self) -> None:
        if self.exact < 0 or self.samples < 1:
            raise ValueError("Later needs exact >= 0 and samples >= 1")


LATER = Later(exact=2, samples=1)
"""The luck method's ``v``: every face of the next two rolls, one sampled continuation per pair of faces.  Exact with
3 Lovat players (at most two rolls follow a roll); with 4, 5 and 6 a half, a seventh and a twenty-fifth of the exact
mean's CPU, its sampling adding under 1% to the variance of a match's corrected result (docs/ratings.md, "What it
costs")."""


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
    reference ``policy`` valuing it (``LATER``); None for a game that declares none (nothing to subtract)."""
    spec = game.info.luck
    if spec is None:
        return None
    return chance_correction(game, record, spec.by_kind(), policy, beaten)


def chance_correction(game: Game, record: Mapping[str, Any], faces: Mapping[str, Sequence[Any]], policy: Policy,
                      value: Valuation, later: Later = LATER) -> tuple[float, ...]:
    """Per seat, the summed ``v(rolled) − mean v(face)`` over the record's valued chance events (0 without any)."""
    total = [0.0] * game.info.resolve_options(None, record.get("options", {}))["players"]
    for term in chance_terms(game, record, faces, policy, value, later):
        total = [sum_ + part for sum_, part in zip(total, term, strict=True)]
    return tuple(total)


def chance_terms(game: Game, record: Mapping[str, Any], faces: Mapping[str, Sequence[Any]], policy: Policy,
                 value: Valuation, later: Later = LATER) -> list[tuple[float, ...]]:
    """Per valued chance event of ``record``, in order: ``v(rolled) − mean v(face)`` for each entry of ``v``.

    ``record`` is a match record (docs/records.md) with every chance outcome listed, as stored matches have;
    an action that draws a valued outcome is replayed once per face, each with that outcome scripted, and each
    valued by ``later``'s play-outs from the same generators (``_Faces``).
    """
    options = game.info.resolve_options(None, record.get("options", {}))
    state = game.new_state(record["seed"], options, script=record.get("chance", []))
    terms: list[tuple[float, ...]] = []
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
        # Seeded from what was known before the roll: the deal's seed and the roll's place, not its face.
        plan = _Faces(later, json.dumps([record["seed"], len(terms)]), ())
        values = {face: _expected(_after(before, seat, action, valued[0], outcome["kind"], face), faces, policy,
                                  value, plan)
                  for face in faces[outcome["kind"]]}
        means = [sum(column) / len(values) for column in zip(*values.values(), strict=True)]
        terms.append(tuple(got - mean for got, mean in zip(values[outcome["value"]], means, strict=True)))
    return terms


def _after(before: GameState, seat: int, action: Action, position: int, kind: str, face: Any) -> GameState:
    """The state ``action`` leads to from ``before`` when its ``position``-th chance outcome is ``face``.

    The outcomes the record lists after it are dropped: ``v`` averages over the later ones instead.
    """
    state = before.clone()
    script = state.chance.script  # the outcomes still to come, the next one last
    if len(script) <= position:
        raise ValueError("the record does not list every chance outcome (stored matches do)")
    script[len(script) - 1 - position] = {"kind": kind, "value": face}
    del script[:len(script) - 1 - position]
    state.apply(seat, action)
    return state


@dataclass(frozen=True, slots=True)
class _Faces:
    """Where a play-out is among ``later``'s branches: the faces its ``exact`` events took so far (``chosen``),
    or, past them, the generator drawing its faces (``rng``).  ``key`` names the valued event being valued."""

    later: Later
    key: str
    chosen: tuple[Any, ...]
    rng: random.Random | None = None

    def branches(self, kind: str, faces: Sequence[Any]) -> list[tuple[Any, _Faces]]:
        """The faces the next valued event takes, equally weighted, each with where its play-out goes on."""
        if self.rng is not None:
            return [(faces[self.rng.randrange(len(faces))], self)]
        if len(self.chosen) < self.later.exact:
            return [(face, _Faces(self.later, self.key, (*self.chosen, face))) for face in faces]
        found = []
        for sample in range(self.later.samples):
            digest = hashlib.blake2b(json.dumps([self.key, self.chosen, sample]).encode(), digest_size=16).digest()
            stream = _Faces(self.later, self.key, self.chosen, random.Random(int.from_bytes(digest, "big")))
            found.append(stream.branches(kind, faces)[0])
        return found


def _expected(state: GameState, faces: Mapping[str, Sequence[Any]], policy: Policy, value: Valuation,
              plan: _Faces) -> tuple[float, ...]:
    """``v``: the mean value of playing ``state`` to the end with ``policy`` in every seat, over the faces ``plan``
    gives each later valued chance event (the other chance, if any, from the state's own seeded generator)."""
    while not state.is_over():
        seat = state.to_move()[0]
        action = policy(state.observation(seat))
        before = state.clone()
        drawn = len(state.chance.log)
        state.apply(seat, action)
        valued = [index for index, outcome in enumerate(state.chance.log[drawn:]) if outcome["kind"] in faces]
        if valued:
            if valued[0] != 0:
                raise ValueError("a valued chance outcome drawn after another outcome in one action")
            kind = state.chance.log[drawn]["kind"]
            values = []
            for face, then in plan.branches(kind, faces[kind]):
                branch = before.clone()
                branch.chance.script = [{"kind": kind, "value": face}]
                branch.apply(seat, action)
                values.append(_expected(branch, faces, policy, value, then))
            return tuple(sum(column) / len(values) for column in zip(*values, strict=True))
    return value(state.result())
