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

A game may also name fields that stay the same for a seat over a whole game (the
game id, the seat, the deal's public facts): ``fixed_part(cls, names)`` makes a
named tuple of them, which the state builds once per seat and every observation
of that seat shares in its ``_fixed`` slot instead of storing each field again;
such a field reads ``_fixed`` through a C-level property (``attrgetter``).

The class is a frozen, slotted dataclass deriving from ``LazyObservation`` (an
``Observation`` with the ``_fixed`` and ``_snapshot`` slots).  A lazy field's class attribute
is a ``LazySlot`` wrapping the field's slot, so equality, hashing, ``repr``,
``to_json``, copying and pickling, which all read fields through ``getattr``,
see computed values, and an observation made by the constructor
(``observation_from_json``) simply has every value stored (its fixed fields in a
``_fixed`` of its own: the constructor is replaced to build it).  Nothing reachable
from an observation is the state or another seat's private data: the builder
stores only what the game's ``observation.py`` hands it.
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
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
    """An ``Observation`` with private slots: ``_fixed`` (its fixed fields) and ``_snapshot`` (inputs of lazy ones)."""

    __slots__ = ("_fixed", "_snapshot")


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


def fixed_part(cls: type[LazyObservation], names: Sequence[str]) -> Any:
    """A named tuple type of ``cls``'s fields ``names``, in field order: what ``lazy_constructor(fixed=)`` shares."""
    fields = [field.name for field in dataclasses.fields(cls)]
    if not set(names) <= set(fields):
        raise TypeError(f"{cls.__name__} has no fields {sorted(set(names) - set(fields))}")
    return namedtuple(f"{cls.__name__}Fixed", [name for name in fields if name in names])


def lazy_constructor(
    cls: type[LazyObservation], lazy: Mapping[str, Callable[[Any], Any]], fixed: Any = None, snapshot: bool = True
) -> Callable[..., Any]:
    """Make ``lazy``'s fields of ``cls`` lazy; return ``build(<every field in order>, snapshot)``.

    With ``fixed`` (a ``fixed_part(cls, ...)`` type), its fields are read from the ``_fixed`` slot and ``build``
    takes a ``fixed`` instance first and the other fields after it: ``build(fixed, <the rest in order>, snapshot)``.
    Without ``snapshot`` (no lazy field reads one), ``build`` takes no snapshot and leaves the slot empty.

    ``build`` creates an instance of a private subclass that keeps ``object``'s
    plain ``__setattr__`` and the raw slots (a frozen dataclass stores each
    field through ``object.__setattr__``, about 90 ns a field; a slot store
    costs about 10 ns), fills it, and turns it into a ``cls`` by ``__class__``
    assignment (allowed: the subclass adds no slots).  Checked once here against
    the dataclass constructor.
    """
    fields = [field.name for field in dataclasses.fields(cls)]
    shared: tuple[str, ...] = fixed._fields if fixed is not None else ()
    unknown = sorted(set(lazy) - set(fields)) + sorted(set(shared) & set(lazy))
    if unknown or not issubclass(cls, LazyObservation):
        raise TypeError(f"{cls.__name__}: not a LazyObservation, or no such fields (or lazy and fixed): {unknown}")
    names = [name for name in fields if name not in shared]  # the fields each observation stores itself
    slots = {name: cls.__dict__[name] for name in lazy}
    for name, compute in lazy.items():
        setattr(cls, name, LazySlot(slots[name], compute))
    if fixed is not None:
        _share_fixed(cls, fixed, fields)
    # object's __init__ (so that builder() is the cheapest way to make an instance: object.__new__(builder)
    # costs two argument tuples more) and object's __setattr__ and __delattr__ (both: they share one type slot).
    builder = type(
        f"_{cls.__name__}Builder",
        (cls,),
        {"__slots__": (), "__init__": object.__init__, "__setattr__": object.__setattr__,
         "__delattr__": object.__delattr__, **slots},
    )
    arguments = (["fixed"] if fixed is not None else []) + names + (["snapshot"] if snapshot else [])
    body = (["obj = builder()"] + (["obj._fixed = fixed"] if fixed is not None else [])
            + [f"obj.{name} = {name}" for name in names] + (["obj._snapshot = snapshot"] if snapshot else [])
            + ["obj.__class__ = cls", "return obj"])
    source = f"def build({', '.join(arguments)}):\n" + "".join(f"    {line}\n" for line in body)
    namespace: dict[str, Any] = {"builder": builder, "cls": cls}
    exec(source, namespace)  # generated from the dataclass's own field names
    build: Callable[..., Any] = namespace["build"]
    vars(build)["builder"] = builder  # for builder_of
    _check(cls, build, fields, lazy, fixed, snapshot)
    return build


def builder_of(build: Callable[..., Any]) -> type[Any]:
    """The private subclass a ``lazy_constructor`` build fills, for a game that stores the fields itself.

    Filled field by field (the lazy ones raw, ``PENDING`` as is), an instance becomes a ``cls`` by ``__class__``
    assignment, exactly as ``build`` makes one.
    """
    builder: type[Any] = vars(build)["builder"]
    return builder


def _share_fixed(cls: type, fixed: Any, fields: list[str]) -> None:
    """Read ``fixed``'s fields of ``cls`` from ``_fixed``, and give ``cls`` a constructor and ``__setstate__`` that
    build ``_fixed`` (the dataclass's own would store those fields in slots no longer read)."""
    shared: tuple[str, ...] = fixed._fields
    for name in shared:
        setattr(cls, name, property(attrgetter(f"_fixed.{name}"), doc=f"{name}: shared by the seat's observations"))
    stores = "".join(f"    store(self, {name!r}, {name})\n" for name in fields if name not in shared)
    source = (f"def __init__(self, {', '.join(fields)}):\n"
              f"    store(self, '_fixed', fixed({', '.join(shared)}))\n{stores}")
    namespace: dict[str, Any] = {"store": object.__setattr__, "fixed": fixed}
    exec(source, namespace)  # generated from the dataclass's own field names, in its order
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__name__}.__init__"
    init.__doc__ = f"A {cls.__name__} from every field (the dataclass's signature)."
    cls.__init__ = init  # type: ignore[misc]

    def __setstate__(self: Any, state: Sequence[Any]) -> None:
        """Copying and unpickling: ``__getstate__`` (the dataclass's) lists every field in order."""
        init(self, *state)

    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]


def _check(cls: type, build: Callable[..., Any], fields: list[str], lazy: Mapping[str, Callable[[Any], Any]],
           fixed: Any, snapshot: bool) -> None:
    """Check that ``build`` makes a ``cls`` equal to the constructor's once its pending fields are filled in."""
    shared: tuple[str, ...] = fixed._fields if fixed is not None else ()
    given = [name for name in fields if name not in lazy]
    values = [PENDING if name in lazy else (name, "given") for name in fields if name not in shared]
    head = [fixed(*[(name, "given") for name in shared])] if fixed is not None else []
    made = build(*head, *values, *([None] if snapshot else []))
    for name in lazy:
        slot = cls.__dict__[name]
        if slot.get(made, cls) is not PENDING:
            raise AssertionError(f"lazy_constructor({cls.__name__}) did not leave {name} pending")
        slot.set(made, (name, "computed"))
    expected = cls(**{name: (name, "given") for name in given}, **{name: (name, "computed") for name in lazy})
    if type(made) is not cls or made != expected or hash(made) != hash(expected):
        raise AssertionError(f"lazy_constructor({cls.__name__}) does not reproduce the dataclass constructor")
