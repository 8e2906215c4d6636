"""The deterministic generator of ``deck.csv``, the Lovat card table (D-1, D-2, D-3).

No official card list exists, so the project made one once and checked it in:
the engine loads ``deck.csv`` and never generates cards at run time (D-1).
This module is kept beside the table so that anyone can see how it was made
and regenerate it byte for byte::

    python -m arena.games.lovat.make_deck          # rewrite deck.csv
    python -m arena.games.lovat.make_deck --check  # exit 1 if deck.csv differs

How the table is built
----------------------
For each level (D-2):

==========  =============  ===========  =============  =====
level       base tuples    cards        strength sum   max
==========  =============  ===========  =============  =====
1           8              40           50             30
2           6              30           75             40
3           2              10           100            50
==========  =============  ===========  =============  =====

A *base tuple* is five positive integers (one per colour, in text order
rufous, gingerline, phlox, zaffre, skobeloff) summing to the level's total,
none above the level's maximum.  Every base tuple enters the deck with all
five cyclic rotations (rotation ``r`` gives colour ``c`` the value
``base[(c + r) % 5]``), so within a level every colour sees exactly the same
multiset of strengths and no colour or die face is favoured (D-3).

Base tuples are drawn uniformly among compositions of the total (four distinct
cut points in ``1 .. total-1``) and rejected when

* a part exceeds the level maximum;
* all five parts are equal (its rotations would coincide: 5 is prime, so any
  other tuple has five distinct rotations);
* it is a rotation of an earlier base tuple (cards must be unique, D-2);
* it is a permutation of an earlier base tuple of the same level (diversity:
  every base tuple brings a new multiset of strengths).

The only randomness is ``random.Random(SEED).random()``, whose sequence Python
guarantees to keep across versions (unlike ``randrange``/``shuffle``), so the
table stays reproducible.  Ids are ``L<level>-<nn>`` numbered in generation
order: base tuple ``b`` (0-based) rotation ``r`` is number ``5*b + r + 1``.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

SEED = 1789
"""Seed of the generator's ``random.Random``; changing it changes every card."""

COLOURS = ("rufous", "gingerline", "phlox", "zaffre", "skobeloff")
"""Colour order of the strength columns (the rule text's order)."""

LEVELS = ((1, 8, 50, 30), (2, 6, 75, 40), (3, 2, 100, 50))
"""Per level: (level, number of base tuples, strength sum, maximum strength) (D-2)."""

HEADER = ("id", "level") + COLOURS
"""Column names of deck.csv."""

DECK_PATH = Path(__file__).with_name("deck.csv")
"""Where the checked-in table lives (beside this module)."""


def _below(rng: random.Random, n: int) -> int:
    """A uniform integer in ``0 .. n-1`` from ``rng.random()`` only (version-stable)."""
    return min(int(rng.random() * n), n - 1)


def _composition(rng: random.Random, total: int) -> tuple[int, ...]:
    """A uniformly random composition of ``total`` into five positive parts."""
    cuts: list[int] = []
    while len(cuts) < 4:
        cut = 1 + _below(rng, total - 1)
        if cut not in cuts:
            cuts.append(cut)
    edges = [0] + sorted(cuts) + [total]
    return tuple(edges[i + 1] - edges[i] for i in range(5))


def rotations(base: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The five cyclic rotations of ``base``, rotation 0 first."""
    return [tuple(base[(c + r) % 5] for c in range(5)) for r in range(5)]


def base_tuples(rng: random.Random, count: int, total: int, maximum: int) -> list[tuple[int, ...]]:
    """Draw ``count`` base tuples for one level (see the module docstring for the rejections)."""
    chosen: list[tuple[int, ...]] = []
    seen_rotations: set[tuple[int, ...]] = set()
    seen_multisets: set[tuple[int, ...]] = set()
    while len(chosen) < count:
        base = _composition(rng, total)
        if max(base) > maximum or len(set(base)) == 1:
            continue
        if base in seen_rotations or tuple(sorted(base)) in seen_multisets:
            continue
        chosen.append(base)
        seen_rotations.update(rotations(base))
        seen_multisets.add(tuple(sorted(base)))
    return chosen


def generate(seed: int = SEED) -> list[tuple[str, int, tuple[int, ...]]]:
    """The deck as ``(id, level, strengths)`` rows in deck order."""
    rng = random.Random(seed)
    rows: list[tuple[str, int, tuple[int, ...]]] = []
    for level, count, total, maximum in LEVELS:
        number = 0
        for base in base_tuples(rng, count, total, maximum):
            for strengths in rotations(base):
                number += 1
                rows.append((f"L{level}-{number:02d}", level, strengths))
    return rows


def render(seed: int = SEED) -> str:
    """The exact text of deck.csv (``\\n`` line endings, header first)."""
    lines = [",".join(HEADER)]
    for card_id, level, strengths in generate(seed):
        lines.append(",".join([card_id, str(level), *map(str, strengths)]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Rewrite deck.csv, or with ``--check`` report whether it matches the generator."""
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args == ["--check"]:
        current = DECK_PATH.read_bytes() if DECK_PATH.exists() else b""
        if current != text.encode("ascii"):
            print(f"{DECK_PATH} differs from the generator: run python -m arena.games.lovat.make_deck", file=sys.stderr)
            return 1
        print(f"{DECK_PATH} matches the generator")
        return 0
    if args:
        print("usage: python -m arena.games.lovat.make_deck [--check]", file=sys.stderr)
        return 2
    DECK_PATH.write_bytes(text.encode("ascii"))
    print(f"wrote {DECK_PATH} ({text.count(chr(10)) - 1} cards)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
