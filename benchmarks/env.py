"""Learning environments: steps per second of ``arena.env``'s AEC environment beside RLCard's and OpenSpiel's.

Every environment plays whole games with uniformly random legal actions, and
builds at every step what a learner is given: the acting seat's observation
vector and its legal actions (a mask, or a list).

* **arena** (``arena.env.aec_env``): the PettingZoo loop, ``env.last()`` (the
  observation dict: encoded vector and action mask) then ``env.step(index)``
  for a random open index; terminal steps (``step(None)``) are not counted.
  Slovak Lorum (4 deals) and 4-player Lovat (its keep is a step per card).
* **RLCard Bridge** (``rlcard.make("bridge")``): ``env.step(action)`` returns the
  next state with its encoded observation and legal actions.
* **OpenSpiel Hearts** (``open_spiel.python.rl_environment.Environment``): its
  Python environment; every ``step`` builds the information-state tensors and
  legal actions of the players.

Peers come with the ``bench`` extra (``pip install -e '.[bench]'``); without
them their rows say "not installed".  Figures are steps per CPU second of this
process (``common.cpu_clock``), medians over repeats, all measured in one run with the
repeats interleaved.

    .venv/bin/python benchmarks/env.py            # default sizes
    .venv/bin/python benchmarks/env.py --quick    # a few games (smoke test)
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

import numpy as np

clock = common.cpu_clock

SIZES: dict[str, dict[str, int]] = {
    "quick": {"games": 2, "repeats": 3},
    "default": {"games": 30, "repeats": 5},
    "full": {"games": 120, "repeats": 9},
}
"""Games per repeat and repeats."""

INSTALL_HINT = "pip install -e '.[bench]'"


def arena_steps(game: str, options: dict, games: int, repeat: int) -> tuple[float, float]:
    """Steps per second of ``games`` random games in ``arena.env.aec_env``, and steps per game."""
    from arena.env import aec_env

    env = aec_env(game, **options)
    rng = random.Random(repeat)
    steps = 0
    started = clock()
    for number in range(games):
        env.reset(seed=repeat * games + number)
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1
    return steps / (clock() - started), steps / games


def rlcard_steps(games: int, repeat: int) -> tuple[float, float]:
    """Steps per second of ``games`` random Bridge games in RLCard's environment, and steps per game."""
    import rlcard

    env = rlcard.make("bridge", config={"seed": repeat})
    rng = random.Random(repeat)
    steps = 0
    started = clock()
    for _ in range(games):
        state, _player = env.reset()
        while not env.is_over():
            state, _player = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
    return steps / (clock() - started), steps / games


def openspiel_steps(games: int, repeat: int) -> tuple[float, float]:
    """Steps per second of ``games`` random Hearts games in OpenSpiel's Python ``rl_environment``, and steps
    per game."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("hearts", chance_event_sampler=rl_environment.ChanceEventSampler(seed=repeat))
    rng = random.Random(repeat)
    steps = 0
    started = clock()
    for _ in range(games):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            time_step = env.step([rng.choice(time_step.observations["legal_actions"][player])])
            steps += 1
    return steps / (clock() - started), steps / games


PEERS: tuple[tuple[str, str, Callable[[int, int], tuple[float, float]]], ...] = (
    ("RLCard bridge env: steps per second", "rlcard", rlcard_steps),
    ("OpenSpiel hearts rl_environment: steps per second", "open_spiel", openspiel_steps),
)
"""(row, package, measurement) of each peer."""


def per_second(value: float) -> str:
    """``"41,200 steps/s"``."""
    return f"{value:,.0f} steps/s"


def measure(size: str = "default") -> list[common.Row]:
    """Our two rows, then a row per peer (a "not installed" row for a missing one).

    The repeats are interleaved (one repeat of every environment, then the next), so that a
    neighbour's load that comes and goes on the shared cores weighs on every environment alike.
    """
    sizes = SIZES[size]
    games, repeats = sizes["games"], sizes["repeats"]
    runs: dict[str, Callable[[int], tuple[float, float]]] = {
        label: functools.partial(arena_steps, game, options, games)
        for label, game, options in (("lorum", "lorum", {"deals": 4}), ("lovat 4p", "lovat", {"players": 4}))
    }
    missing = []
    for case, package, run in PEERS:
        try:
            __import__(package)
        except ImportError:
            missing.append(
                common.Row("env", case, "not installed", "", f"{package} is not installed here: {INSTALL_HINT}")
            )
        else:
            runs[case] = functools.partial(run, games)
    samples: dict[str, list[float]] = {label: [] for label in runs}
    per_game: dict[str, float] = {}
    for repeat in range(repeats):
        for label, measure in runs.items():
            rate, per_game[label] = measure(repeat)
            samples[label].append(rate)
    rates = {label: common.median(values) for label, values in samples.items()}
    where = f"{games} games × {repeats} repeats, interleaved"
    rows = [
        common.Row("env", f"arena AEC env, {label}: steps per second", per_second(rates[label]), "",
                   f"random open steps, observation vector and mask built at each; {per_game[label]:.0f} steps/game, "
                   f"{where}")
        for label in ("lorum", "lovat 4p")
    ]
    ours = {label: rates[label] for label in ("lorum", "lovat 4p")}
    for case, package, _run in PEERS:
        if case not in rates:
            continue
        rate = rates[case]
        comparison = "; ".join(f"ours {common.ratio(value / rate)} ({label})" for label, value in ours.items())
        rows.append(common.Row("env", case, per_second(rate),
                               f"{comparison}; {common.target(min(ours.values()) > rate, 'faster than this peer')}",
                               f"{package} {common.version(package)}, random legal actions, {per_game[case]:.0f} "
                               f"steps/game, {where}"))
    return rows + missing


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    common.print_table("Learning environments", measure(common.size_from_args(__doc__, argv)))


if __name__ == "__main__":
    main()
