"""Train a small Slovak Lorum policy by imitating an arena agent, with numpy only, and save its weights.

    .venv/bin/python examples/train_lorum.py                       # about two minutes on 2 cores
    .venv/bin/python examples/train_lorum.py --games 300 --epochs 2 --output /tmp/policy.npz   # a quick look

1. **Collect**: play games in ``arena.env.aec_env("lorum")``.  At each table every
   seat is, by a coin flip per game, the teacher (``greedy`` by default: any
   arena agent name) or ``random`` (for states the teacher alone would never
   reach).  Each teacher decision is kept: the seat's observation vector, its
   action mask and the index of the teacher's action.
2. **Fit**: a multilayer perceptron (``arena.env.policy.MLPPolicy``) by minibatch
   Adam on the cross-entropy of the teacher's action under a softmax over the
   open actions only.  A tenth of the games is held out to report accuracy.
3. **Save** the weights (``.npz``) where ``plugins/example-learned`` reads them.

Everything is seeded: the same arguments give the same weights file.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from arena.env import aec_env
from arena.env.policy import MLPPolicy
from arena.plugins import load_registry
from arena.seeding import derive_seed

DEFAULT_OUTPUT = (
    Path(__file__).resolve().parent.parent / "plugins/example-learned/src/arena_example_learned/lorum_policy.npz"
)
"""Where the example plugin looks for its weights by default."""


def collect(games: int, teacher: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play ``games`` one-deal games; (vectors, masks, teacher action indices, game number) of each teacher decision."""
    registry = load_registry(plugins_dir=None).registry
    teacher_spec, random_spec = registry.agent(teacher), registry.agent("random")
    if not teacher_spec.plays("lorum"):
        raise KeyError(f"agent {teacher!r} does not play lorum")
    env = aec_env("lorum", deals=1)
    info = env.game.info
    rng = np.random.default_rng(seed)
    vectors, masks, targets, numbers = [], [], [], []
    for game in range(games):
        env.reset(seed=derive_seed(seed, "game", game))
        teaching = rng.random(4) < 0.75
        agents = [
            (teacher_spec if teaching[seat] else random_spec).factory(
                seat=seat, game=info, players=4, seed=derive_seed(seed, "agent", game, seat), options={})
            for seat in range(4)
        ]
        for agent in env.agent_iter():
            _observation, _reward, terminated, _truncated, _info = env.last()
            if terminated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            observation = env.game_observation(agent)
            (index,) = env.encoding.steps_of(observation, agents[seat].act(observation))
            if teaching[seat]:
                arrays = env.observe(agent)
                vectors.append(arrays["observation"])
                masks.append(arrays["action_mask"])
                targets.append(index)
                numbers.append(game)
            env.step(index)
        if (game + 1) % max(1, games // 10) == 0:
            print(f"  collected {game + 1}/{games} games, {len(targets)} decisions", flush=True)
    return np.array(vectors), np.array(masks, dtype=bool), np.array(targets), np.array(numbers)


def masked_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Row-wise softmax over the open actions only (closed actions get probability 0)."""
    logits = np.where(masks, logits, -np.inf)
    logits = logits - logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return weights / weights.sum(axis=1, keepdims=True)


def fit(policy: MLPPolicy, vectors: np.ndarray, masks: np.ndarray, targets: np.ndarray, epochs: int,
        rng: np.random.Generator, batch: int = 256, rate: float = 1e-3) -> None:
    """Minibatch Adam on the masked cross-entropy of ``targets`` (backpropagation through the ReLU layers)."""
    params = [array for layer in policy.layers for array in layer]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, step = 0.9, 0.999, 0
    for epoch in range(epochs):
        order = rng.permutation(len(targets))
        total = 0.0
        for start in range(0, len(order), batch):
            chosen = order[start:start + batch]
            x, mask, y = vectors[chosen], masks[chosen], targets[chosen]
            activations = [x]
            for weights, bias in policy.layers[:-1]:
                activations.append(np.maximum(activations[-1] @ weights + bias, 0.0))
            weights, bias = policy.layers[-1]
            probabilities = masked_softmax(activations[-1] @ weights + bias, mask)
            total += -np.log(probabilities[np.arange(len(y)), y] + 1e-12).sum()
            delta = probabilities
            delta[np.arange(len(y)), y] -= 1.0
            delta /= len(y)
            grads: list[np.ndarray] = []
            for depth in range(len(policy.layers) - 1, -1, -1):
                weights, _bias = policy.layers[depth]
                grads[:0] = [activations[depth].T @ delta, delta.sum(axis=0)]
                if depth:
                    delta = (delta @ weights.T) * (activations[depth] > 0)
            step += 1
            for param, grad, moment, square in zip(params, grads, moments, squares, strict=True):
                moment *= beta1
                moment += (1 - beta1) * grad
                square *= beta2
                square += (1 - beta2) * grad * grad
                param -= rate * (moment / (1 - beta1**step)) / (np.sqrt(square / (1 - beta2**step)) + 1e-8)
        print(f"  epoch {epoch + 1}/{epochs}: mean loss {total / len(targets):.3f}", flush=True)


def accuracy(policy: MLPPolicy, vectors: np.ndarray, masks: np.ndarray, targets: np.ndarray) -> float:
    """Share of decisions where the policy's best open action is the teacher's."""
    logits = np.where(masks, policy.logits(vectors), -np.inf)
    return float((logits.argmax(axis=1) == targets).mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Train a Slovak Lorum policy by imitation (numpy only) and save its weights.",
        epilog="example: python examples/train_lorum.py --games 300 --epochs 2 --output /tmp/policy.npz",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--games", type=int, default=6000, help="one-deal games to collect (default 6000)")
    parser.add_argument("--teacher", default="greedy", help="arena agent to imitate (default greedy)")
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (default 128)")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the data (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT, help="weights file to write")
    args = parser.parse_args(argv)
    if args.games < 10 or args.hidden < 1 or args.epochs < 1:
        print("train_lorum: --games must be at least 10, --hidden and --epochs at least 1", file=sys.stderr)
        return 2
    started = time.perf_counter()
    print(f"collecting {args.games} games with teacher {args.teacher!r}", flush=True)
    try:
        vectors, masks, targets, numbers = collect(args.games, args.teacher, args.seed)
    except KeyError as error:
        print(f"train_lorum: --teacher: {error.args[0]}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:  # PettingZoo or Gymnasium: the message says which install brings them
        print(f"train_lorum: {error}", file=sys.stderr)
        return 1
    held_out = numbers >= args.games * 9 // 10
    env = aec_env("lorum")
    rng = np.random.default_rng(args.seed)
    sizes = [env.encoding.observation_size, args.hidden, len(env.encoding.actions)]
    policy = MLPPolicy.initial(sizes, "lorum", 4, rng)
    print(f"fitting {sizes} on {int((~held_out).sum())} decisions", flush=True)
    fit(policy, vectors[~held_out], masks[~held_out], targets[~held_out], args.epochs, rng)
    print(f"held-out accuracy (same action as the teacher): "
          f"{accuracy(policy, vectors[held_out], masks[held_out], targets[held_out]):.3f}")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    policy.save(args.output)
    print(f"wrote {args.output} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
