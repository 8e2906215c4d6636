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
process (``common.cpu_clock``), medians over repeats, all measured in one run.

    .venv/bin/python benchmarks/env.py            # default sizes
    .venv/bin/python benchmarks/env.py --quick    # a few games (smoke test)
"""

from __future__ import annotations

import random
from collections.abc import Sequence

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

import numpy as np  # noqa: E402

clock = common.cpu_clock

SIZES: dict[str, dict[str, int]] = {
    "quick": {"games": 2, "repeats": 3},
    "default": {"games": 30, "repeats": 5},
    "full": {"games": 120, "repeats": 9},
}
"""Games per repeat and repeats."""

INSTALL_HINT = "pip install -e '.[bench]'"


def arena_steps(game: str, options: dict, games: int, repeats: int) -> tuple[float, float]:
    """Median steps per second of random games in ``arena.env.aec_env``, and steps per game."""
    from arena.env import aec_env

    env = aec_env(game, **options)
    samples, steps = [], 0
    for repeat in range(repeats):
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
        samples.append(steps / (clock() - started))
    return common.median(samples), steps / games


def rlcard_steps(games: int, repeats: int) -> tuple[float, float]:
    """Median steps per second of random Bridge games in RLCard's environment, and steps per game."""
    import rlcard

    samples, steps = [], 0
    for repeat in range(repeats):
        env = rlcard.make("bridge", config={"seed": repeat})
        rng = random.Random(repeat)
        steps = 0
        started = clock()
        for _ in range(games):
            state, _player = env.reset()
            while not env.is_over():
                state, _player = env.step(rng.choice(list(state["legal_actions"])))
                steps += 1
        samples.append(steps / (clock() - started))
    return common.median(samples), steps / games


def openspiel_steps(games: int, repeats: int) -> tuple[float, float]:
    """Median steps per second of random Hearts games in OpenSpiel's Python ``rl_environment``, and steps per game."""
    from open_spiel.python import rl_environment

    samples, steps = [], 0
    for repeat in range(repeats):
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
        samples.append(steps / (clock() - started))
    return common.median(samples), steps / games


def per_second(value: float) -> str:
    """``"41,200 steps/s"``."""
    return f"{value:,.0f} steps/s"


def measure(size: str = "default") -> list[common.Row]:
    """Our two rows, then a row per peer (a "not installed" row for a missing one)."""
    sizes = SIZES[size]
    games, repeats = sizes["games"], sizes["repeats"]
    rows: list[common.Row] = []
    ours = {}
    for label, game, options in (("lorum", "lorum", {"deals": 4}), ("lovat 4p", "lovat", {"players": 4})):
        rate, per_game = arena_steps(game, options, games, repeats)
        ours[label] = rate
        rows.append(common.Row("env", f"arena AEC env, {label}: steps per second", per_second(rate), "",
                               f"random open steps, observation vector and mask built at each; {per_game:.0f} "
                               f"steps/game, {games} games × {repeats} repeats"))
    slowest = min(ours.values())
    peers = (("RLCard bridge env: steps per second", "rlcard", rlcard_steps),
             ("OpenSpiel hearts rl_environment: steps per second", "open_spiel", openspiel_steps))
    for case, package, run in peers:
        try:
            __import__(package)
        except ImportError:
            rows.append(common.Row("env", case, "not installed", "", f"{package} is not installed here: {INSTALL_HINT}"))
            continue
        rate, per_game = run(games, repeats)
        comparison = "; ".join(f"ours {common.ratio(value / rate)} ({label})" for label, value in ours.items())
        rows.append(common.Row("env", case, per_second(rate),
                               f"{comparison}; {common.target(slowest > rate, 'faster than this peer')}",
                               f"{package} {common.version(package)}, random legal actions, {per_game:.0f} "
                               f"steps/game, {games} games × {repeats} repeats"))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    common.print_table("Learning environments", measure(common.size_from_args(__doc__, argv)))


if __name__ == "__main__":
    main()
