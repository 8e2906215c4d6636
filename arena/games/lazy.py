"""Observations built with few allocations: most fields shared with the state, the costly ones computed on access.

An allocation (a tuple, a list, an object) is most of what an observation
costs, and most agents read a few fields (``legal``, ``phase``, the hand).  So
a game keeps its public record in tuples that each change replaces (shared,
never copied, by observations and clones), and an observation is built by
``lazy_constructor(cls, lazy)``:

* every field is stored at once, as given: references to immutable values
  (ints, strings, tuples), never a mutable part of the state;
* a field in ``lazy`` may be given as ``PENDING`` instead: it is then computed
  on first access by ``lazy[name](observation)``, from the observation's other
  fields and its ``_snapshot``, a private slot holding what only this seat may
  know (e.g. its hand as a card mask).  The value replaces ``PENDING`` in the slot.

The class is a frozen, slotted dataclass deriving from ``LazyObservation`` (an
``Observation`` with the ``_snapshot`` slot).  A lazy field's class attribute
is a ``LazySlot`` wrapping the field's slot, so equality, hashing, ``repr``,
``to_json``, copying and pickling, which all read fields through ``getattr``,
see computed values, and an observation made by the constructor
(``observation_from_json``) simply has every value stored.  Nothing reachable
from an observation is the state or another seat's private data: the builder
stores only what the game's ``observation.py`` hands it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from arena.games.base import Observation


class _Pending:
    """The type of ``PENDING``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "PENDING"


PENDING = _Pending()
"""What a lazy field's slot holds until the field is first read."""


class LazyObservation(Observation):
    """An ``Observation`` with a private ``_snapshot`` slot: this seat's own inputs of its lazy fields."""

    __slots__ = ("_snapshot",)


class LazySlot:
    """A lazy field's descriptor: the slot's value, computed by ``compute(observation)`` while it is ``PENDING``."""

    __slots__ = ("compute", "get", "set")

    def __init__(self, slot: Any, compute: Callable[[Any], Any]) -> None:
        self.get = slot.__get__  # bound once: no method object per access
        self.set = slot.__set__
        self.compute = compute

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.get(instance, owner)
        if value is PENDING:
            value = self.compute(instance)
            self.set(instance, value)
        return value

    def __set__(self, instance: Any, value: Any) -> None:
        self.set(instance, value)


def lazy_constructor(cls: type[LazyObservation], lazy: Mapping[str, Callable[[Any], Any]]) -> Callable[..., Any]:
    """Make ``lazy``'s fields of ``cls`` lazy; return ``build(<every field in order>, snapshot)``.

    ``build`` creates an instance of a private subclass that keeps ``object``'s
    plain ``__setattr__`` and the raw slots (a frozen dataclass stores each
    field through ``object.__setattr__``, about 90 ns a field; a slot store
    costs about 10 ns), fills it, and turns it into a ``cls`` by ``__class__``
    assignment (allowed: the subclass adds no slots).  Checked once here against
    the dataclass constructor.
    """
    names = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(lazy) - set(names))
    if unknown or not issubclass(cls, LazyObservation):
        raise TypeError(f"{cls.__name__}: not a LazyObservation, or no such fields: {unknown}")
    slots = {name: cls.__dict__[name] for name in lazy}
    for name, compute in lazy.items():
        setattr(cls, name, LazySlot(slots[name], compute))
    # object's __init__ (so that builder() is the cheapest way to make an instance: object.__new__(builder)
    # costs two argument tuples more) and object's __setattr__ and __delattr__ (both: they share one type slot).
    builder = type(
        f"_{cls.__name__}Builder",
        (cls,),
        {"__slots__": (), "__init__": object.__init__, "__setattr__": object.__setattr__,
         "__delattr__": object.__delattr__, **slots},
    )
    stores = "".join(f"    obj.{name} = {name}\n" for name in names)
    source = (f"def build({', '.join(names)}, snapshot):\n    obj = builder()\n{stores}"
              f"    obj._snapshot = snapshot\n    obj.__class__ = cls\n    return obj\n")
    namespace: dict[str, Any] = {"builder": builder, "cls": cls}
    exec(source, namespace)  # generated from the dataclass's own field names
    build: Callable[..., Any] = namespace["build"]
    _check(cls, build, names, lazy)
    return build


def _check(cls: type, build: Callable[..., Any], names: list[str], lazy: Mapping[str, Callable[[Any], Any]]) -> None:
    """Check that ``build`` makes a ``cls`` equal to the constructor's once its pending fields are filled in."""
    given = [name for name in names if name not in lazy]
    made = build(*[PENDING if name in lazy else (name, "given") for name in names], None)
    for name in lazy:
        slot = cls.__dict__[name]
        if slot.get(made, cls) is not PENDING:
            raise AssertionError(f"lazy_constructor({cls.__name__}) did not leave {name} pending")
        slot.set(made, (name, "computed"))
    expected = cls(**{name: (name, "given") for name in given}, **{name: (name, "computed") for name in lazy})
    if type(made) is not cls or made != expected or hash(made) != hash(expected):
        raise AssertionError(f"lazy_constructor({cls.__name__}) does not reproduce the dataclass constructor")
