"""Rating methods by name, so that configs and command-line flags can choose them.

``fit(outcomes, "elo", bootstrap=200)`` runs a method by its name; ``METHODS`` maps each
name to its ``fit`` function.  Every method has the same shape::

    fit(outcomes: Sequence[MatchOutcome], **options) -> RatingTable

a pure function of the outcomes in the order they were played; only TrueSkill depends on
that order.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np

from arena.ratings import elo, plackett_luce, score, trueskill
from arena.ratings.data import MatchArrays, MatchOutcome
from arena.ratings.table import RatingTable


class RatingMethod(Protocol):
    """A rating method: outcomes (in the order played) and keyword options in, a ``RatingTable`` out."""

    def __call__(self, outcomes: Sequence[MatchOutcome], *args: Any, **options: Any) -> RatingTable: ...


METHODS: Mapping[str, RatingMethod] = MappingProxyType(
    {
        elo.METHOD: elo.fit,
        plackett_luce.METHOD: plackett_luce.fit,
        trueskill.METHOD: trueskill.fit,
        score.METHOD: score.fit,
    }
)
"""Every rating method by its name: "elo", "plackett-luce", "trueskill", "score"."""

DEFAULT_METHOD = elo.METHOD
"""The method used when none is named."""


def method_names() -> tuple[str, ...]:
    """Names of the available methods, in registry order."""
    return tuple(METHODS)


def get_method(name: str) -> RatingMethod:
    """The ``fit`` function of method ``name``; ``ValueError`` naming the choices if unknown."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(
            f"unknown rating method {name!r}; choose one of {', '.join(METHODS)} (e.g. --method elo)"
        ) from None


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
