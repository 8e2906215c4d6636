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
from types import MappingProxyType
from typing import Any, Protocol

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
    return function(outcomes, **options)  # type: ignore[arg-type]  # every method packs with as_arrays
