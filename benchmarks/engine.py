"""Engine speed: random-vs-random games through the agent interface, and the raw forward model.

Two measures per game:

* **per decision through the agent interface**: full games between the
  first-party ``random`` agents, played by the loop the trusted referee runs
  (``observation(seat)`` -> ``agent.act`` -> ``apply``; in Lovat's simultaneous
  keep every keeping seat's observation is taken before any keep is applied).
  The time covers the deal (``new_state``) and every decision, the agents'
  own time included; it is divided by the number of decisions.  Agents are
  built once per repeat (building them is the harness's cost, see
  ``tournament.py``).
* **forward model** (what a search agent sees): ``clone()`` of a mid-game
  state, one ``apply`` of a legal action, the ``observation(seat)`` the agent
  is handed, and a rollout step (``to_move`` + ``legal_actions`` + a random
  choice + ``apply``) when playing a cloned state out to the end.  The states
  are every decision point after the keep of a few random games.

Also per game: the same loop replaying the random agents' recorded actions
(``act`` returns the next recorded action), which is the engine's and the
interface's share of a decision; the rest is the agents' own thinking.

Figures are CPU time of this single-threaded process (``common.cpu_clock``:
the cores are shared, and CPU time does not count waiting for one), medians
over ``repeats`` runs.

    .venv/bin/python benchmarks/engine.py            # default sizes
    .venv/bin/python benchmarks/engine.py --quick    # a few games (smoke test)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
else:
    from benchmarks import common

from arena.games.base import Game, GameState
from arena.plugins import load_registry

CASES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("lovat 3p", "lovat", {"players": 3}),
    ("lovat 4p", "lovat", {"players": 4}),
    ("lovat 5p", "lovat", {"players": 5}),
    ("lovat 6p", "lovat", {"players": 6}),
    ("lorum", "lorum", {"players": 4, "deals": 4}),
)
"""(label, game, options) of every full-game case."""

FORWARD_CASES: tuple[str, ...] = ("lovat 4p", "lorum")
"""The cases whose forward model (clone, apply, observation, rollout) is measured."""

clock = common.cpu_clock
"""Every engine figure is CPU time of this (single-threaded) process; see ``common.cpu_clock``."""

TARGET_SECONDS = 3e-6
"""The target: at most 3 µs per decision through the agent interface, for both games."""

SIZES: dict[str, dict[str, int]] = {
    "quick": {"games": 3, "repeats": 3, "states_games": 2},
    "default": {"games": 150, "repeats": 7, "states_games": 20},
    "full": {"games": 600, "repeats": 11, "states_games": 60},
}
"""Games per repeat, repeats, and the games whose decision points feed the forward-model measures."""


def registry_games_and_random() -> tuple[dict[str, Game], Any]:
    """The installed games and the ``random`` agent's spec, loaded the way a tournament worker does."""
    registry = load_registry(plugins_dir=None, entry_points=False).registry
    return dict(registry.games), registry.agent("random")


def make_agents(spec: Any, game: Game, players: int, seed: int) -> list[Any]:
    """Fresh ``random`` agents, one per seat."""
    return [spec.factory(seat=seat, game=game.info, players=players, seed=seed + seat, options={})
            for seat in range(players)]


def play(game: Game, options: dict[str, Any], seed: int, agents: Sequence[Any]) -> int:
    """One full game through the agent interface; the number of decisions."""
    state = game.new_state(seed, options)
    decisions = 0
    while not state.is_over():
        deciding = state.to_move()
        if len(deciding) == 1:
            seat = deciding[0]
            state.apply(seat, agents[seat].act(state.observation(seat)))
            decisions += 1
        else:  # a simultaneous phase: every observation first
            observations = [(seat, state.observation(seat)) for seat in deciding]
            for seat, action in [(seat, agents[seat].act(observation)) for seat, observation in observations]:
                state.apply(seat, action)
            decisions += len(deciding)
    return decisions


def per_decision(
    game: Game, options: dict[str, Any], spec: Any, games: int, repeats: int
) -> tuple[float, float, float]:
    """Median seconds per decision, decisions per game and median seconds per game over ``repeats`` runs."""
    players = options["players"]
    samples = []
    counted = 0
    for repeat in range(repeats):
        agents = make_agents(spec, game, players, seed=repeat)
        started = clock()
        decisions = sum(play(game, options, 1000 * repeat + index, agents) for index in range(games))
        elapsed = clock() - started
        samples.append((elapsed / decisions, elapsed / games))
        counted = decisions
    per_move = common.median([sample[0] for sample in samples])
    per_game = common.median([sample[1] for sample in samples])
    return per_move, counted / games, per_game


class Replayer:
    """A stand-in agent that returns recorded actions: the loop's cost without any agent's thinking."""

    def __init__(self, take: Any) -> None:
        self.act = lambda observation: take()


def per_decision_replayed(game: Game, options: dict[str, Any], spec: Any, games: int, repeats: int) -> float:
    """Median seconds per decision of the same loop replaying the random agents' recorded actions.

    Observations are still made and the actions applied exactly as in ``play``;
    only ``act`` is replaced by taking the next recorded action, so this is
    the engine's and the interface's share of a decision.
    """
    players = options["players"]
    samples = []
    for repeat in range(repeats):
        agents = make_agents(spec, game, players, seed=repeat)
        recorded: list[Any] = []
        for index in range(games):
            seen = [_Recorder(agent, recorded) for agent in agents]
            play(game, options, 1000 * repeat + index, seen)
        replayers = [Replayer(iter(recorded).__next__)] * players
        started = clock()
        for index in range(games):
            play(game, options, 1000 * repeat + index, replayers)
        samples.append((clock() - started) / len(recorded))
    return common.median(samples)


class _Recorder:
    """Wraps an agent and appends each action it returns to a shared list, in decision order."""

    def __init__(self, agent: Any, into: list[Any]) -> None:
        self.agent = agent
        self.into = into

    def act(self, observation: Any) -> Any:
        action = self.agent.act(observation)
        self.into.append(action)
        return action


def decision_points(game: Game, options: dict[str, Any], spec: Any, games: int) -> list[GameState]:
    """Clones of every state after the keep where one seat is to move, from ``games`` random games."""
    players = options["players"]
    states = []
    for index in range(games):
        agents = make_agents(spec, game, players, seed=77 + index)
        state = game.new_state(5000 + index, options)
        while not state.is_over():
            deciding = state.to_move()
            if len(deciding) == 1:
                states.append(state.clone())
                seat = deciding[0]
                state.apply(seat, agents[seat].act(state.observation(seat)))
            else:
                observations = [(seat, state.observation(seat)) for seat in deciding]
                for seat, action in [(seat, agents[seat].act(observation)) for seat, observation in observations]:
                    state.apply(seat, action)
    return states


def forward_model(states: Sequence[GameState], repeats: int) -> dict[str, float]:
    """Median seconds of ``clone()``, ``apply``, ``observation`` and one rollout step over ``states``."""
    rng = random.Random(3)
    moves = []
    for state in states:
        (seat,) = state.to_move()
        moves.append((seat, rng.choice(state.legal_actions(seat))))
    clone_times, apply_times, observe_times, rollout_times = [], [], [], []
    for _ in range(repeats):
        started = clock()
        for state in states:
            state.clone()
        clone_times.append((clock() - started) / len(states))

        twins = [state.clone() for state in states]
        started = clock()
        for twin, (seat, action) in zip(twins, moves):
            twin.apply(seat, action)
        apply_times.append((clock() - started) / len(states))

        started = clock()
        for state, (seat, _action) in zip(states, moves):
            state.observation(seat)
        observe_times.append((clock() - started) / len(states))

        twins = [state.clone() for state in states]
        choice = rng.choice
        steps = 0
        started = clock()
        for twin in twins:
            while not twin.is_over():
                (seat,) = twin.to_move()
                twin.apply(seat, choice(twin.legal_actions(seat)))
                steps += 1
        rollout_times.append((clock() - started) / max(steps, 1))
    return {
        "clone": common.median(clone_times),
        "apply": common.median(apply_times),
        "observation": common.median(observe_times),
        "rollout": common.median(rollout_times),
    }


def measure(size: str = "default") -> tuple[list[common.Row], dict[str, float]]:
    """Every engine row, and the per-decision seconds by case label (for the peers' ratios)."""
    sizes = SIZES[size]
    games, spec = registry_games_and_random()
    rows: list[common.Row] = []
    seconds: dict[str, float] = {}
    for label, name, options in CASES:
        game = games[name]
        per_move, decisions, per_game = per_decision(game, options, spec, sizes["games"], sizes["repeats"])
        seconds[label] = per_move
        rows.append(common.Row(
            "engine", f"{label}: per decision, agent interface", common.us(per_move),
            common.target(per_move <= TARGET_SECONDS, "≤ 3 µs"),
            f"{common.ms(per_game)} per game, {decisions:.1f} decisions/game; "
            f"{sizes['games']} games × {sizes['repeats']} repeats",
        ))
        replayed = per_decision_replayed(game, options, spec, sizes["games"], sizes["repeats"])
        rows.append(common.Row(
            "engine", f"{label}: per decision, replayed actions (engine share)", common.us(replayed),
            f"agents' share {common.us(max(per_move - replayed, 0.0))} "
            f"({100 * max(per_move - replayed, 0.0) / per_move:.0f}%)",
            "the same loop and games, act() replaced by the next recorded action",
        ))
    for label, name, options in CASES:
        if label not in FORWARD_CASES:
            continue
        game = games[name]
        states = decision_points(game, options, spec, sizes["states_games"])
        forward = forward_model(states, sizes["repeats"])
        note = f"{len(states)} mid-game states × {sizes['repeats']} repeats"
        rows.append(common.Row("engine", f"{label}: clone()", common.us(forward["clone"]), "", note))
        rows.append(common.Row("engine", f"{label}: apply()", common.us(forward["apply"]), "", note))
        rows.append(common.Row("engine", f"{label}: observation(seat)", common.us(forward["observation"]), "", note))
        rows.append(common.Row("engine", f"{label}: rollout step (legal_actions + apply)",
                               common.us(forward["rollout"]), "", f"playing each cloned state out; {note}"))
    return rows, seconds


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    rows, _ = measure(common.size_from_args(__doc__, argv, full_help="larger sizes, tighter medians"))
    common.print_table("Engine speed", rows)


if __name__ == "__main__":
    main()
