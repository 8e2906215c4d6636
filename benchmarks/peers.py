"""Peers: RLCard's Bridge and OpenSpiel's Hearts measured like our engines, as ratios against ours.

Both come with the optional ``bench`` extra (``pip install -e '.[bench]'``);
without them the rows say "not installed".  Each ratio is the peer's median
over ours, both measured in this process, one after the other (CPU time, see
``common.cpu_clock``); above 1 means ours is faster.

* **RLCard Bridge**, random agents through RLCard's agent interface:
  ``state, player = env.reset()``, then ``env.step(agent.step(state))`` until
  ``env.is_over()`` -- the loop ``env.run`` runs, without its trajectory
  bookkeeping.  ``state`` is RLCard's observation (the encoded vector and the
  legal actions), made for every decision.  Compared with our per-decision
  figure for Slovak Lorum and 4-player Lovat.
* **OpenSpiel Hearts** (``pyspiel``), random play: chance nodes sampled from
  ``chance_outcomes()``; at each decision the player's observation
  ``information_state_tensor(player)`` (Hearts provides no ``observation_tensor``),
  ``legal_actions(player)``, a random choice, ``apply_action``.  Also without the
  observation, against our rollout step (``legal_actions`` + ``apply``), and
  ``clone()`` against ours.

    .venv/bin/python benchmarks/peers.py            # default sizes
    .venv/bin/python benchmarks/peers.py --quick    # a few games (smoke test)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

if __package__ in (None, ""):
    import common  # type: ignore[import-not-found]  # run as a script: benchmarks/ is on sys.path
    import engine  # type: ignore[import-not-found]
else:
    from benchmarks import common, engine

clock = common.cpu_clock

SIZES: dict[str, dict[str, int]] = {
    "quick": {"games": 2, "repeats": 3, "ours_games": 3, "states_games": 2},
    "default": {"games": 40, "repeats": 7, "ours_games": 150, "states_games": 20},
    "full": {"games": 150, "repeats": 11, "ours_games": 600, "states_games": 60},
}
"""Peer games per repeat, repeats, our games per repeat, and games feeding our forward-model states."""

INSTALL_HINT = "pip install -e '.[bench]'"


def rlcard_bridge(games: int, repeats: int) -> tuple[float, float]:
    """Median seconds per decision of random Bridge games, and decisions per game."""
    import rlcard
    from rlcard.agents import RandomAgent

    samples = []
    decisions = 0
    for repeat in range(repeats):
        env = rlcard.make("bridge", config={"seed": repeat})
        agents = [RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)]
        started = clock()
        decisions = 0
        for _ in range(games):
            state, player = env.reset()
            while not env.is_over():
                state, player = env.step(agents[player].step(state))
                decisions += 1
        samples.append((clock() - started) / decisions)
    return common.median(samples), decisions / games


def openspiel_hearts(games: int, repeats: int, observe: bool) -> tuple[float, float, list[Any]]:
    """Median seconds per decision of random Hearts games, decisions per game, and mid-game states."""
    import pyspiel

    game = pyspiel.load_game("hearts")
    samples = []
    decisions = 0
    states: list[Any] = []
    for repeat in range(repeats):
        rng = random.Random(repeat)
        choice, choices = rng.choice, rng.choices
        started = clock()
        decisions = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, weights = zip(*state.chance_outcomes())
                    state.apply_action(choices(actions, weights)[0])
                    continue
                player = state.current_player()
                if observe:
                    state.information_state_tensor(player)
                state.apply_action(choice(state.legal_actions(player)))
                decisions += 1
                if repeat == 0 and len(states) < 2000:
                    states.append(state.clone())
        samples.append((clock() - started) / decisions)
    return common.median(samples), decisions / games, states


def median_per_item(items: Sequence[Any], run: Callable[[Any], object], repeats: int) -> float:
    """Median over ``repeats`` of the mean seconds of ``run(item)`` over ``items``."""
    samples = []
    for _ in range(repeats):
        started = clock()
        for item in items:
            run(item)
        samples.append((clock() - started) / len(items))
    return common.median(samples)


def vs(peer: float, ours: float, what: str) -> str:
    """``"peer/ours 8.1× (lorum)"``."""
    return f"{common.ratio(peer / ours)} ours ({what})"


def measure(size: str = "default") -> list[common.Row]:
    """Every peer row (a "not installed" row for a missing peer)."""
    sizes = SIZES[size]
    games, spec = engine.registry_games_and_random()
    ours = {}
    for label, name, options in engine.CASES:
        if label in ("lovat 4p", "lorum"):
            ours[label] = engine.per_decision(games[name], options, spec, sizes["ours_games"], sizes["repeats"])[0]
    lorum_states = engine.decision_points(games["lorum"], {"players": 4, "deals": 4}, spec, sizes["states_games"])
    our_forward = engine.forward_model(lorum_states, sizes["repeats"])
    rows: list[common.Row] = []
    note_ours = f"ours: {common.us(ours['lorum'])} lorum, {common.us(ours['lovat 4p'])} lovat 4p per decision"

    try:
        import rlcard  # noqa: F401
    except ImportError:
        rows.append(common.Row("peers", "RLCard bridge: per decision, agent interface", "not installed", "",
                               f"rlcard is not installed here: {INSTALL_HINT}"))
    else:
        bridge, decisions = rlcard_bridge(sizes["games"], sizes["repeats"])
        rows.append(common.Row(
            "peers", "RLCard bridge: per decision, agent interface", common.us(bridge),
            f"{vs(bridge, ours['lorum'], 'lorum')}; {vs(bridge, ours['lovat 4p'], 'lovat 4p')}",
            f"rlcard {common.version('rlcard')}, random agents, {decisions:.1f} decisions/game, "
            f"{sizes['games']} games × {sizes['repeats']} repeats; {note_ours}",
        ))

    try:
        import pyspiel  # noqa: F401
    except ImportError:
        for case in ("OpenSpiel hearts: per decision, information_state_tensor",
                     "OpenSpiel hearts: per decision, no observation", "OpenSpiel hearts: clone()"):
            rows.append(common.Row("peers", case, "not installed", "",
                                   f"open_spiel is not installed here: {INSTALL_HINT}"))
        return rows
    hearts, decisions, states = openspiel_hearts(sizes["games"], sizes["repeats"], observe=True)
    rows.append(common.Row(
        "peers", "OpenSpiel hearts: per decision, information_state_tensor", common.us(hearts),
        f"{vs(hearts, ours['lorum'], 'lorum')}; {vs(hearts, ours['lovat 4p'], 'lovat 4p')}",
        f"open_spiel {common.version('open_spiel')}, random play, {decisions:.1f} decisions/game, "
        f"{sizes['games']} games × {sizes['repeats']} repeats; {note_ours}",
    ))
    bare, _, _ = openspiel_hearts(sizes["games"], sizes["repeats"], observe=False)
    rows.append(common.Row(
        "peers", "OpenSpiel hearts: per decision, no observation", common.us(bare),
        vs(bare, our_forward["rollout"], "lorum rollout step"),
        f"legal_actions + apply_action; ours: {common.us(our_forward['rollout'])} per lorum rollout step",
    ))
    clone = median_per_item(states, lambda state: state.clone(), sizes["repeats"])
    rows.append(common.Row(
        "peers", "OpenSpiel hearts: clone()", common.us(clone), vs(clone, our_forward["clone"], "lorum clone"),
        f"{len(states)} mid-game states; ours: {common.us(our_forward['clone'])} per lorum clone()",
    ))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    """Run this script's measurements at the size the command line asks for and print the table."""
    common.print_table("Peers", measure(common.size_from_args(__doc__, argv)))


if __name__ == "__main__":
    main()
