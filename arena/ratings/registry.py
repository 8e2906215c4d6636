"""Rating methods by name, so that configs and command-line flags can choose them.

``fit(outcomes, "elo", bootstrap=200)`` runs a method by its name; ``METHODS`` maps each
name to its ``fit`` function, and ``method_spec`` gives what views and configs need to know of a method
(``MethodSpec``: its column label, digits, whether it bootstraps, ...).  ``register_method`` adds one.
Every method has the same shape::

    fit(outcomes: Sequence[MatchOutcome], **options) -> RatingTable

a pure function of the outcomes in the order they were played; only TrueSkill depends on
that order.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from arena.ratings import elo, luck_adjusted, plackett_luce, score, trueskill
from arena.ratings.data import MatchArrays, MatchOutcome
from arena.ratings.table import RatingTable


class RatingMethod(Protocol):
    """A rating method: outcomes (in the order played) and keyword options in, a ``RatingTable`` out."""

    def __call__(self, outcomes: Sequence[MatchOutcome], *args: Any, **options: Any) -> RatingTable: ...


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """A rating method and what every view and config needs to know of it, so none of them names it.

    ``label`` heads the method's column where methods sit side by side; a method that rates the game's own
    score (``game_score``) is headed by the game's score unit instead (``ScoreSpec.label``) and is given the
    game's per-match divisor and unit text.
    """

    name: str  # registry name: "elo", also the ``--method`` and config spelling
    fit: RatingMethod  # fit(outcomes, **options) -> RatingTable
    label: str  # short scale for a column heading: "Elo", "mu"
    digits: int = 2  # decimals worth showing (Elo-scale ratings are whole points)
    bootstraps: bool = False  # takes ``bootstrap=`` replicates over duplicate blocks (``--bootstrap``)
    history: bool = False  # cheap enough to refit at every checkpoint of the rating history
    pairwise: bool = False  # P(stronger) for every pair from one fit: a ladder may schedule and stop by it
    game_score: bool = False  # rates the game's score: takes ``divisor`` and ``unit`` from the game
    # subtracts each match's luck correction (arena.ratings.luck): a run whose config lists it computes and stores
    # them, and it takes ``chance``, what the game's correction values (GameInfo.luck)
    luck: bool = False

    def column_label(self, score_label: str) -> str:
        """The heading of this method's column, ``score_label`` being the game's score unit."""
        return score_label if self.game_score else self.label


_SPECS: dict[str, MethodSpec] = {
    spec.name: spec
    for spec in (
        MethodSpec(elo.METHOD, elo.fit, "Elo", digits=0, bootstraps=True, history=True, pairwise=True),
        MethodSpec(plackett_luce.METHOD, plackett_luce.fit, "Elo (PL)", digits=0, bootstraps=True, history=True,
                   pairwise=True),
        MethodSpec(trueskill.METHOD, trueskill.fit, "mu"),
        MethodSpec(score.METHOD, score.fit, "score", history=True, game_score=True),
        MethodSpec(luck_adjusted.METHOD, luck_adjusted.fit, "seats beaten", history=True, luck=True),
    )
}


BUILT_IN = frozenset(_SPECS)
"""The names of arena's own methods: any other is a plugin's, whose failure leaves out its own leaderboard only."""


class _Fits(Mapping[str, RatingMethod]):
    """The registry's ``fit`` functions by name, a live view (a method registered later shows up)."""

    def __getitem__(self, name: str) -> RatingMethod:
        return _SPECS[name].fit

    def __iter__(self) -> Iterator[str]:
        return iter(_SPECS)

    def __len__(self) -> int:
        return len(_SPECS)


METHODS: Mapping[str, RatingMethod] = _Fits()
"""Every rating method's ``fit`` by its name: "elo", "plackett-luce", "trueskill", "score", "luck", then any
registered."""

DEFAULT_METHOD = elo.METHOD
"""The method used when none is named."""


def register_method(spec: MethodSpec) -> MethodSpec:
    """Add a rating method (e.g. from a trusted plugin); ``ValueError`` if its name is taken."""
    if spec.name in _SPECS:
        raise ValueError(f"rating method {spec.name!r} is already registered; give the new method another name")
    _SPECS[spec.name] = spec
    return spec


def method_names() -> tuple[str, ...]:
    """Names of the available methods, in registry order."""
    return tuple(_SPECS)


def method_spec(name: str) -> MethodSpec:
    """The method called ``name``; ``ValueError`` naming the choices if unknown."""
    try:
        return _SPECS[name]
    except KeyError:
        raise ValueError(
            f"unknown rating method {name!r}; choose one of {', '.join(_SPECS)} (e.g. --method elo)"
        ) from None


def get_method(name: str) -> RatingMethod:
    """The ``fit`` function of method ``name``; ``ValueError`` naming the choices if unknown."""
    return method_spec(name).fit


def rating_digits(method: str) -> int:
    """Decimals worth showing for ``method``'s ratings (2 for a method not registered)."""
    spec = _SPECS.get(method)
    return spec.digits if spec is not None else 2


def history_methods() -> tuple[str, ...]:
    """Methods cheap enough for the rating history, in registry order."""
    return tuple(name for name, spec in _SPECS.items() if spec.history)


def pairwise_methods() -> tuple[str, ...]:
    """Methods a ladder may schedule and stop by, in registry order."""
    return tuple(name for name, spec in _SPECS.items() if spec.pairwise)


def needs_luck(methods: Sequence[str]) -> bool:
    """Whether any of ``methods`` subtracts the stored luck corrections (``MethodSpec.luck``; unknown names do not)."""
    return any(spec.luck for name in methods if (spec := _SPECS.get(name)) is not None)


def fit(outcomes: Sequence[MatchOutcome] | MatchArrays, method: str = DEFAULT_METHOD, **options: Any) -> RatingTable:
    """Rate ``outcomes`` with the method called ``method``, passing ``options`` to it.

    Raises
    ------
    ValueError
        For an unknown method name.
    TypeError
        For an option the method does not take (the message lists the method's options).
    """
    function = get_method(method)
    allowed = [name for name in inspect.signature(function).parameters if name != "outcomes"]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"rating method {method!r} has no option {unknown[0]!r}; its options are {', '.join(allowed)}"
        )
    return separate_groups(function(outcomes, **options), outcomes)  # type: ignore[arg-type]


def _seatings(outcomes: Sequence[MatchOutcome] | MatchArrays) -> tuple[list[str], list[list[int]]]:
    """Agent names and, per match, the indices of the agents seated (read without packing the outcomes again)."""
    if isinstance(outcomes, MatchArrays):
        return list(outcomes.agents), [[agent for agent in seats if agent >= 0]
                                       for seats in outcomes.seat_agent.tolist()]
    index: dict[str, int] = {}
    matches = [[index.setdefault(agent, len(index)) for agent in outcome.agents] for outcome in outcomes]
    return list(index), matches


def groups_that_met(outcomes: Sequence[MatchOutcome] | MatchArrays) -> list[list[str]]:
    """The agents in groups of those linked by shared matches (a chain of matches links two agents), largest first."""
    agents, matches = _seatings(outcomes)
    parent = list(range(len(agents)))

    def root(agent: int) -> int:
        while parent[agent] != agent:
            parent[agent] = parent[parent[agent]]
            agent = parent[agent]
        return agent

    for present in matches:
        for agent in present[1:]:
            parent[root(agent)] = root(present[0])
    groups: dict[int, list[str]] = {}
    for number, name in enumerate(agents):
        groups.setdefault(root(number), []).append(name)
    return sorted((sorted(group) for group in groups.values()), key=lambda group: (-len(group), group))


def separate_groups(table: RatingTable, outcomes: Sequence[MatchOutcome] | MatchArrays) -> RatingTable:
    """``table`` with no verdict between agents that never met, not even through others.

    A rating places an agent against those it was compared with; between two groups that never
    shared a match, nothing in the data compares them, and each method's centring would decide
    the gap.  P(stronger) across groups is 0.5 and the gap's interval unbounded; the extras
    name the groups and the interval note says so.
    """
    groups = groups_that_met(outcomes)
    if len(groups) < 2 or not table.superiority:
        return table
    group_of = {agent: number for number, group in enumerate(groups) for agent in group}
    apart = np.array([[group_of[a] != group_of[b] for b in table.agents] for a in table.agents])
    superiority = np.where(apart, 0.5, np.array(table.superiority))
    contrast = np.where(apart, np.inf, np.array(table.contrast_sd)) if table.contrast_sd else None
    note = (f"the entries form {len(groups)} groups that never met, even through others "
            f"({'; '.join(', '.join(group) for group in groups)}): ratings compare only within a group, and "
            "P(stronger) between groups is 0.5")
    reason = table.extras.get("interval_reason")
    extras = {**table.extras, "groups": groups, "interval_reason": f"{reason}; {note}" if reason else note}
    return replace(table, superiority=tuple(map(tuple, superiority.tolist())),
                   contrast_sd=tuple(map(tuple, contrast.tolist())) if contrast is not None else table.contrast_sd,
                   extras=extras)
