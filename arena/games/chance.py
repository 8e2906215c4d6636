"""The games' single source of randomness: ``Chance``, a seeded RNG with a script and a log.

Kept apart from the game interface (``arena.games.interface``) because most of it is speed:
copy-on-write copies for search and an inlined ``Random.shuffle`` that draws exactly as CPython's does.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Sequence
from typing import Any

from arena.games.scripted import check_script
from arena.games.types import ChanceOutcome, InvalidSetup, to_json


class Chance:
    """The game's single source of randomness (L-18, S-19).

    Each outcome is drawn from the seeded RNG unless a scripted outcome of the
    same kind is waiting, in which case the script is used; either way the
    outcome is appended to ``log``.  A record's chance list is this log, so
    replaying it reproduces the game without the seed, and a hand-written
    record can script just the deal and leave the rest to the seed.

    ``copy()`` is copy-on-write, because search clones states far more often
    than it draws from them: the copy shares the RNG, the script and the log
    with the original, and whichever side first touches one of them (through
    ``rng``, ``script``, ``log``, ``scripted``, ``record`` or ``shuffle``) takes
    its own copy of that part then.  Copying the Mersenne Twister's state
    (``getstate``/``setstate``) costs about 11 µs, fifty times the rest of a
    copy, and most search clones never draw again.  Do not keep a reference to
    ``rng`` across a ``copy()``: draw through the attribute.
    """

    __slots__ = ("_log", "_rng", "_script", "_shared")

    def __init__(self, seed: int, script: Sequence[ChanceOutcome] = ()) -> None:
        if script:
            check_script(script)  # a record's: untrusted
        self._rng = _seeded(seed) if type(seed) is int and _SEEDING_MATCHES else random.Random(seed)
        self._script = list(reversed([dict(outcome) for outcome in script])) if script else []
        self._log: list[ChanceOutcome] = []
        self._shared = 0  # bit per part that may be shared with a copy: _RNG, _SCRIPT, _LOG

    # -- the three parts, each copied on first use after a ``copy()`` ---------------------------

    @property
    def rng(self) -> random.Random:
        """The seeded ``random.Random`` (this object's own: copied first if it was shared)."""
        if self._shared & _RNG:
            # Random.__new__ skips __init__'s seeding from os.urandom (half the cost); setstate sets everything.
            twin = _new_random(random.Random) if type(self._rng) is random.Random else random.Random()
            twin.setstate(self._rng.getstate())
            self._rng = twin
            self._shared &= ~_RNG
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value
        self._shared &= ~_RNG

    @property
    def script(self) -> list[ChanceOutcome]:
        """Scripted outcomes still to come, the next one last."""
        if self._shared & _SCRIPT:
            self._script = list(self._script)
            self._shared &= ~_SCRIPT
        return self._script

    @script.setter
    def script(self, value: list[ChanceOutcome]) -> None:
        self._script = value
        self._shared &= ~_SCRIPT

    @property
    def log(self) -> list[ChanceOutcome]:
        """Every outcome so far, in order: ``{"kind": ..., "value": <JSON>}``."""
        if self._shared & _LOG:
            self._log = list(self._log)
            self._shared &= ~_LOG
        return self._log

    @log.setter
    def log(self, value: list[ChanceOutcome]) -> None:
        self._log = value
        self._shared &= ~_LOG

    # -- drawing and recording ------------------------------------------------------------------

    def scripted(self, kind: str) -> Any | None:
        """Pop the next scripted outcome if it is of ``kind``; ``None`` when the script is exhausted."""
        if not self._script:  # an empty script is never written to, shared or not
            return None
        script = self.script
        if script[-1].get("kind") != kind:
            raise InvalidSetup(
                f"chance outcome {len(self._log)} should be {kind!r}, the record has {script[-1].get('kind')!r}"
            )
        value = script.pop().get("value")
        if value is None:  # None is reserved for "not scripted"
            raise InvalidSetup(f"chance outcome {len(self._log)} ({kind!r}) has no value")
        return value

    def record(self, kind: str, value: Any) -> Any:
        """Append an outcome to the log and return its value."""
        self.log.append({"kind": kind, "value": _json_copy(value)})
        return value

    def record_fresh(self, kind: str, value: Any) -> None:
        """Append an outcome whose value is JSON data made for the log alone (lists, not tuples): no copy.

        For a deal built as new lists of card names just to be logged: copying them again (``record``)
        costs as much as the rest of a Lorum deal.  Nothing else may hold or change ``value`` afterwards.
        """
        self.log.append({"kind": kind, "value": value})

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does: the same draws, the same order.

        CPython's ``Random.shuffle`` calls ``_randbelow(i + 1)`` for ``i`` from
        ``len - 1`` down to 1, and ``_randbelow(n)`` draws ``getrandbits(n.bit_length())``
        until the result is below ``n``.  Inlining that loop halves the cost of a
        deal.  ``_SHUFFLE_MATCHES`` checks at import that it still matches this
        Python's ``shuffle``; if not (or for an RNG of another class), ``rng.shuffle`` is used.
        """
        rng = self.rng
        if not _SHUFFLE_MATCHES or type(rng) is not random.Random:
            rng.shuffle(items)
            return
        _inline_shuffle(rng, items)

    def copy(self) -> Chance:
        """An independent copy with the same RNG position, script and log (copy-on-write, see the class)."""
        twin = _new_chance(Chance)
        twin._rng = self._rng
        twin._script = self._script
        twin._log = self._log
        twin._shared = self._shared = _ALL_PARTS
        return twin


_RNG, _SCRIPT, _LOG = 1, 2, 4
_ALL_PARTS = _RNG | _SCRIPT | _LOG
_new_chance = object.__new__
_new_random = random.Random.__new__

def _seeded(seed: int) -> random.Random:
    """``random.Random(seed)`` for an int ``seed``: the C seeding alone, without ``Random.__init__`` and
    ``Random.seed``'s Python layers (their type checks only matter for other seeds; a sixth of the cost)."""
    rng = _new_random(random.Random)
    _seed_c(rng, seed)
    rng.gauss_next = None  # type: ignore[attr-defined]  # what Random.seed also sets (getstate includes it)
    return rng


def _seeding_matches() -> bool:
    """Whether ``_seeded(seed)`` starts where ``random.Random(seed)`` does (checked once at import)."""
    return all(_seeded(seed).getstate() == random.Random(seed).getstate()
               for seed in (0, 1, -1, 7, 2**32, 2**64 + 5, -(2**70)))


_seed_c = _random.Random.seed  # the C seeding: init_by_array on the int's 32-bit words
_SEEDING_MATCHES = _seeding_matches()

_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


def _inline_shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)`` with ``_randbelow`` inlined (see ``Chance.shuffle``)."""
    if len(items) > 1025:
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i, k in _steps(len(items)):  # j = _randbelow(i + 1): getrandbits(k) until it is at most i
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


def _steps(length: int) -> tuple[tuple[int, int], ...]:
    """``(i, (i + 1).bit_length())`` for ``i`` from ``length - 1`` down to 1: a shuffle's steps, kept per length.

    Unpacking a ready pair costs less than looking the bit length up on every step, and decks come in a
    few lengths (32, 80, the unseen cards of a sampled deal).
    """
    steps = _STEPS.get(length)
    if steps is None:
        if len(_STEPS) >= 64:  # a bound, should some game shuffle lists of many lengths
            _STEPS.clear()
        steps = _STEPS[length] = tuple((i, (i + 1).bit_length()) for i in range(length - 1, 0, -1))
    return steps


_STEPS: dict[int, tuple[tuple[int, int], ...]] = {}


def _shuffle_matches() -> bool:
    """Whether ``_inline_shuffle`` reproduces this Python's ``Random.shuffle`` (checked once at import)."""
    for seed, size in ((0, 2), (1, 32), (2, 80), (3, 33), (4, 5), (5, 1025), (6, 1026)):
        ours, theirs = random.Random(seed), random.Random(seed)
        a, b = list(range(size)), list(range(size))
        _inline_shuffle(ours, a)
        theirs.shuffle(b)
        if a != b or ours.getstate() != theirs.getstate():
            return False
    return True


_SHUFFLE_MATCHES = _shuffle_matches()


def randbelow(rng: random.Random, n: int) -> int:
    """``rng.randrange(n)`` for ``n > 0``: the same draws, without ``randrange``'s argument handling.

    ``randrange(n)`` is ``_randbelow(n)``, which draws ``getrandbits(n.bit_length())`` until the result
    is below ``n``; inlined here for a plain ``random.Random`` (the deals' dealer, Lovat's die and random
    keeps draw so).  ``RANDBELOW_MATCHES`` says whether it still matches this Python's ``randrange``; if
    not (or for an RNG of another class), ``rng.randrange`` is used.
    """
    if type(rng) is not random.Random or not RANDBELOW_MATCHES or type(n) is not int or n <= 0:
        return rng.randrange(n)
    k = n.bit_length()
    j = rng.getrandbits(k)
    while j >= n:
        j = rng.getrandbits(k)
    return j


def _randbelow_matches() -> bool:
    """Whether ``randbelow(rng, n)`` draws what this Python's ``rng.randrange(n)`` does, and ``seq[randbelow(rng,
    len(seq))]`` what ``rng.choice(seq)`` does, leaving the generator in the same state (checked once at import)."""
    for seed, n in ((0, 1), (1, 2), (2, 3), (3, 6), (4, 17), (5, 1000), (6, 2**40 + 3)):
        for draw in (lambda rng, n=n: rng.randrange(n), lambda rng, n=n: rng.choice(range(n))):
            ours, theirs = random.Random(seed), random.Random(seed)
            if [randbelow(ours, n) for _ in range(30)] != [draw(theirs) for _ in range(30)]:
                return False
            if ours.getstate() != theirs.getstate():
                return False
    return True


RANDBELOW_MATCHES = True  # on while the check below compares randbelow with randrange and choice
RANDBELOW_MATCHES = _randbelow_matches()
"""Whether ``randbelow`` (and the same draw inlined elsewhere, as in ``uniform_or``) reproduces this Python's
``Random.randrange`` and ``Random.choice``; where it does not, callers use ``random``'s own methods."""


def _json_copy(value: Any) -> Any:
    """``to_json(value)``, with a fast path for the flat lists of strings and numbers that deals are made of."""
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is list or kind is tuple:
        if _JSON_SCALARS.issuperset(map(type, value)):
            return list(value)
        return [_json_copy(item) for item in value]
    return to_json(value)

