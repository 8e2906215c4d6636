"""``IsmctsLovatAgent``: Lovat search whose playouts choose the seat's own later decisions by information-set trees.

The flat search (``SearchLovatAgent``) values a candidate as "this action, then greedy for
the rest of the game", so it picks the action that is best for a greedy future self.  This
agent keeps its root (every candidate in the same sampled worlds, sequential halving) but
under each candidate grows a single-observer information-set tree over the seat's own later
decisions: a node is what the seat would know at that decision (its own actions since the
root and the public facts of the decision: turn, phase, colour, how many of its cards beat
the turn's best card so far), never a hidden card.  In a playout the other seats play greedy's
rule; at its own decisions the seat follows the tree (UCB over the actions, widened one action
at a time from greedy's choice) and adds one new node per playout, whose decision and the
rest of the game are greedy's.  The rank value is backed up along the path.

Options as the flat search's (``iterations``, default ``DEFAULT_ITERATIONS``; ``ms``; ``value``);
deterministic for a seed under an iteration budget.  Docs and measurements:
``docs/agents/search-lovat-ismcts.md``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import Action, GameInfo
from arena.games.lovat.observation import LovatObservation
from arena_agents.search.common import Budget
from arena_agents.search.lovat import SearchLovatAgent
from arena_agents.search.lovat_beliefs import Evidence, Worlds
from arena_agents.search.lovat_cards import _DECLARE, _OVER, _PLAY, _STRENGTH
from arena_agents.search.lovat_sim import Playout

DEFAULT_ITERATIONS = 960
"""Playouts per move by default (the flat search's 640 and half again): 55 to 90 ms of CPU on one core."""


class _Node:
    """Statistics of one own decision: per action, visits and total value (actions in the order widened)."""

    __slots__ = ("actions", "totals", "visits", "total_visits")

    def __init__(self, actions: list[int]) -> None:
        self.actions = actions  # greedy's choice first
        self.visits = [0] * len(actions)
        self.totals = [0.0] * len(actions)
        self.total_visits = 0


def _context(game: Playout, seat: int) -> tuple[int, ...]:
    """The public facts of the seat's pending decision that its tree node is keyed by (no hidden card)."""
    phase = game.phase
    if phase == _PLAY:
        to_beat, colour = game.best_strength, game.colour
        beating = sum(1 for card in game.hands[seat] if _STRENGTH[card][colour] > to_beat)
        return (game.turn, phase, colour, len(game.queue), beating)
    if phase == _DECLARE:
        playing = sum(1 for other in range(game.players) if other != seat and not game.passed[other])
        return (game.turn, phase, game.colour, len(game.queue), playing)
    return (game.turn, phase, game.colour)


class IsmctsLovatAgent(SearchLovatAgent):
    """Flat root over the candidates, information-set trees over the seat's later decisions (module docstring)."""

    exploration = 0.35
    """UCB constant (values are rank shares in [0, 1])."""

    widen_every = 6
    """A node's visits per extra action tried: greedy's alone at first, then one more every ``widen_every``."""

    max_depth = 4
    """Own decisions after the root that the tree may cover; later ones are greedy's."""

    tree: dict[tuple[Any, ...], _Node] | None = None
    """The last turn search's nodes by information key (for tests and reports; the keep search has none)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        self.budget = Budget.from_options(self.options, DEFAULT_ITERATIONS)

    def act(self, observation: LovatObservation) -> Action:  # type: ignore[override]
        """The parent's decision (keep search, halving root) with tree-guided playouts after the keeps."""
        self.tree = None
        return super().act(observation)

    def _turn_search(self, obs: LovatObservation) -> tuple[Any, Any]:
        """Sampler and tree-guided playout for a decision after the keeps."""
        me, kind = self.seat, self.value_kind
        worlds = Worlds(obs, Evidence(obs), self.lean_moves, tilt=self.tilt)
        tree: dict[tuple[Any, ...], _Node] = {}
        self.tree = tree
        exploration, widen_every, max_depth = self.exploration, self.widen_every, self.max_depth

        def sample(rng: random.Random) -> Playout:
            return worlds.draw(rng, self._dice(rng))

        def playout(world: Playout, action: Action, rng: random.Random) -> float:
            game = world.copy()
            game.apply(action)
            key: tuple[Any, ...] = (action,)
            path: list[tuple[_Node, int]] = []
            depth = 0
            while game.phase != _OVER:
                seat = game.queue[0]
                if seat != me:
                    game.step(game.greedy_action())
                    continue
                legal = game.legal()
                if len(legal) == 1:
                    game.step(legal[0])
                    continue
                if depth == max_depth:
                    break
                depth += 1
                key = (key, _context(game, me))
                node = tree.get(key)
                if node is None:
                    first = game.greedy_action()
                    node = tree[key] = _Node([first] + [a for a in legal if a != first])
                    path.append((node, 0))
                    game.step(first)  # the walk ends here, so the key needs no update
                    break  # one new node per playout; greedy plays the rest
                index = _select(node, exploration, widen_every)
                path.append((node, index))
                choice = node.actions[index]
                game.step(choice)
                key = (key, choice)
            if game.phase != _OVER:
                game.run()
            value = game.value(me, kind)
            for node, index in path:
                node.visits[index] += 1
                node.totals[index] += value
                node.total_visits += 1
            return value

        return sample, playout


def _select(node: _Node, exploration: float, widen_every: int) -> int:
    """UCB1 over the node's first ``1 + visits // widen_every`` actions; an untried one among them first."""
    width = min(len(node.actions), 1 + node.total_visits // widen_every)
    log_total = math.log(max(1, node.total_visits))
    best, best_score = 0, -math.inf
    for index in range(width):
        visits = node.visits[index]
        if not visits:
            return index
        score = node.totals[index] / visits + exploration * math.sqrt(log_total / visits)
        if score > best_score:
            best, best_score = index, score
    return best


__all__ = ["DEFAULT_ITERATIONS", "IsmctsLovatAgent"]
