"""Fit the Lovat search's playout policy (``agents/search/lovat_policy.py``) to a stronger player's decisions.

Two steps:

* ``gather``: self-play games of an agent (default ``search``) at every seat; at each of its
  colour, declaration and play decisions with a choice, the features of every legal choice as
  the playout policy sees them (``lovat_policy.choices`` on the seat's public view) and the
  choice made.  Saved as ``.npz`` (not versioned: it is reproduced from the seeds).
* ``fit``: per phase, a softmax-linear model over the choices (multinomial logit, L2
  penalty ``--l2``), fitted by Newton's method from zero weights (deterministic: the same data
  gives the same weights); writes the weights file the search reads, with the data sizes, the
  fit's accuracy and greedy's on the same decisions.

    .venv/bin/python benchmarks/fit_lovat_policy.py gather --players 4 --games 100 --first-seed 20000 --out d4.npz
    .venv/bin/python benchmarks/fit_lovat_policy.py fit d4.npz --out agents/search/lovat_policy.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games.lovat import GAME
from arena.games.lovat.deck import COLOUR_INDEX
from arena.games.lovat.state import COLOUR, DECLARE, PLAY, PLAY_DECISION
from arena_agents.search.lovat_cards import _INDEX
from arena_agents.search.lovat_policy import FEATURES, choices
from arena_agents.search.lovat_sim import Playout
from benchmarks.search_ab import NAMED, load_class

Record = tuple[str, list[list[float]], int]
"""One decision: the phase's name, the features of each legal choice, the index of the choice made."""


def playout_action(phase: str, action: Any) -> int:
    """An engine action of a colour, declaration or play decision in playout form."""
    if phase == COLOUR:
        return COLOUR_INDEX[action]
    if phase == DECLARE:
        return 1 if action == PLAY_DECISION else 0
    return _INDEX[action]


def gather(agent_path: str, options: dict[str, Any], players: int, seeds: range) -> list[Record]:
    """The decisions with a choice of ``agent_path`` in self-play at ``players``, one game per seed."""
    agent_class = load_class(agent_path)
    records: list[Record] = []
    for seed in seeds:
        state = GAME.new_state(seed, {"players": players})
        agents = [
            agent_class(seat=seat, game=GAME.info, players=players, seed=seed * 10 + seat, options=options)
            for seat in range(players)
        ]
        while not state.is_over():
            for seat in list(state.to_move()):
                observation = state.observation(seat)
                action = agents[seat].act(observation)
                if observation.phase in (COLOUR, DECLARE, PLAY):
                    found = choices(Playout.public(observation))
                    if found is not None:
                        name, legal, rows = found
                        records.append((name, rows, legal.index(playout_action(observation.phase, action))))
                state.apply(seat, action)
        print(f"\rseed {seed}: {len(records)} decisions", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return records


def save(records: list[Record], path: Path) -> None:
    """Write decisions as padded arrays per phase: ``{phase}_x`` (decisions, choices, features), mask, chosen."""
    arrays: dict[str, Any] = {}
    for name, features in FEATURES.items():
        mine = [record for record in records if record[0] == name]
        width = max((len(rows) for _, rows, _ in mine), default=1)
        x = np.zeros((len(mine), width, len(features)))
        mask = np.zeros((len(mine), width), dtype=bool)
        for index, (_, rows, _) in enumerate(mine):
            x[index, : len(rows)] = rows
            mask[index, : len(rows)] = True
        arrays[f"{name}_x"] = x
        arrays[f"{name}_mask"] = mask
        arrays[f"{name}_y"] = np.array([chosen for _, _, chosen in mine], dtype=np.int64)
    np.savez_compressed(path, **arrays)


def load(paths: list[Path]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per phase, (features, mask, chosen) of every decision in the files, padded to a common width."""
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    files = [np.load(path) for path in paths]
    for name in FEATURES:
        parts = [(data[f"{name}_x"], data[f"{name}_mask"], data[f"{name}_y"]) for data in files]
        width = max(x.shape[1] for x, _, _ in parts)
        xs = [np.pad(x, ((0, 0), (0, width - x.shape[1]), (0, 0))) for x, _, _ in parts]
        masks = [np.pad(m, ((0, 0), (0, width - m.shape[1]))) for _, m, _ in parts]
        out[name] = (np.concatenate(xs), np.concatenate(masks), np.concatenate([y for _, _, y in parts]))
    return out


def softmax(x: np.ndarray, mask: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Choice probabilities (decisions, choices) under weights ``w``; padded choices get 0."""
    scores = np.where(mask, x @ w, -np.inf)
    scores -= scores.max(axis=1, keepdims=True)
    p = np.exp(scores)
    return p / p.sum(axis=1, keepdims=True)


def fit_phase(x: np.ndarray, mask: np.ndarray, y: np.ndarray, l2: float, steps: int = 50) -> np.ndarray:
    """The weights minimising the mean negative log-likelihood plus ``l2`` times the squared norm (Newton)."""
    n, _, d = x.shape
    w = np.zeros(d)
    chosen = x[np.arange(n), y]
    for _ in range(steps):
        p = softmax(x, mask, w)
        mean = np.einsum("nk,nkd->nd", p, x)
        gradient = (mean - chosen).sum(axis=0) / n + 2 * l2 * w
        centred = x - mean[:, None, :]
        hessian = np.einsum("nk,nkd,nke->de", p, centred, centred) / n + 2 * l2 * np.eye(d)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w


def accuracy(x: np.ndarray, mask: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Share of decisions where the best-scoring choice (first on ties) is the one made."""
    scores = np.where(mask, x @ w, -np.inf)
    return float((scores.argmax(axis=1) == y).mean()) if len(y) else 0.0


def fit(paths: list[Path], l2: float) -> dict[str, Any]:
    """The weights file's content: per phase the weights, the data size and the fit's and greedy's accuracy."""
    data = load(paths)
    out: dict[str, Any] = {"weights": {}, "features": {}, "decisions": {}, "accuracy": {}, "greedy_accuracy": {},
                           "l2": l2, "data": [path.name for path in paths]}
    start = time.process_time()
    for name, features in FEATURES.items():
        x, mask, y = data[name]
        w = fit_phase(x, mask, y, l2)
        greedy = np.zeros(len(features))
        greedy[0] = 1.0  # greedy's rule: the "is greedy's choice" feature alone
        out["weights"][name] = [round(float(value), 6) for value in w]
        out["features"][name] = list(features)
        out["decisions"][name] = len(y)
        out["accuracy"][name] = round(accuracy(x, mask, y, w), 4)
        out["greedy_accuracy"][name] = round(accuracy(x, mask, y, greedy), 4)
    out["fit_seconds"] = round(time.process_time() - start, 2)
    return out


def main(argv: list[str] | None = None) -> None:
    """Gather decisions or fit the weights, as the command line says."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    gathering = commands.add_parser("gather", help="self-play decisions with their features, to an .npz file")
    gathering.add_argument("--agent", default="search", help="module:Class or a first-party agent's name")
    gathering.add_argument("--agent-options", default="{}", help="JSON object of the agent's options")
    gathering.add_argument("--players", type=int, default=4)
    gathering.add_argument("--games", type=int, default=100, help="games, one per seed")
    gathering.add_argument("--first-seed", type=int, default=20000)
    gathering.add_argument("--out", type=Path, required=True)
    fitting = commands.add_parser("fit", help="fit the weights to gathered decisions")
    fitting.add_argument("data", type=Path, nargs="+", help=".npz files written by gather")
    fitting.add_argument("--l2", type=float, default=1e-3, help="L2 penalty on the weights")
    fitting.add_argument("--out", type=Path, required=True, help="the weights file (JSON)")
    args = parser.parse_args(argv)
    if args.command == "gather":
        if not 3 <= args.players <= 6:
            parser.error(f"--players: Lovat is played by 3 to 6 players, not {args.players}")
        agent = NAMED[args.agent]["lovat"] if args.agent in NAMED else args.agent
        try:
            options = json.loads(args.agent_options)
        except json.JSONDecodeError as error:
            parser.error(f"--agent-options: not a JSON object: {error}")
        start = time.process_time()
        records = gather(agent, options, args.players, range(args.first_seed, args.first_seed + args.games))
        save(records, args.out)
        print(f"{len(records)} decisions from {args.games} games at {args.players} players in "
              f"{time.process_time() - start:.0f} s of CPU: {args.out}")
        return
    for path in args.data:
        if not path.is_file():
            parser.error(f"data file {path} does not exist")
    result = fit(args.data, args.l2)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({key: result[key] for key in ("decisions", "accuracy", "greedy_accuracy", "fit_seconds")}))


if __name__ == "__main__":
    main()
