"""``SearchLovatAgent``: determinized Monte Carlo search for Lovat.

At each decision with more than one legal action the agent

1. samples hidden states consistent with its observation (``GAME.sample_state``: uniform
   over the other seats' hidden cards that fit the public record; in the keep phase
   uniform over the other seats' dealt hands, whose keeps it then makes with greedy's
   ``best_keep``);
2. in each sampled state ("world") plays every candidate action out: the candidate, then
   the rest of the game by the greedy policy for every seat (itself included), on
   ``Playout``, a bare simulator about ten times faster than driving ``LovatState``;
   the greedy policy decides from a seat's own hand and the public record only, so a
   playout never uses hidden cards to choose a move;
3. scores a playout by the seat's final standing (``VALUES``, default ``"rank"``: the
   share of opponents it finishes ahead of under L-16, a tie counting half, plus a
   small bonus per point);
4. plays the candidate with the best mean value.  All candidates share each world and
   its die rolls (common random numbers), so they are compared on the same luck.

Candidates are every legal action in the colour, declare, play and void phases (greedy's
choice first, so that it wins exact ties), and in the keep phase a short list of good
keeps: greedy's best keep, the best keep of every legal size, and the best keeps for
other pivots of greedy's keep score (``keep_candidates``).

Options (``self.options``): ``iterations``, playouts per move (one candidate in one world;
default ``DEFAULT_ITERATIONS``, deterministic for a seed), or ``ms``, milliseconds per move
(time-dependent); ``value``, one of ``VALUES``; ``playouts``, one of ``PLAYOUTS`` (default
``"greedy"``; the fitted policy of ``lovat_policy`` was measured and not made the default).
The last search's figures are kept in ``self.stats`` (``None`` after a decision taken without search).

The simulator is ``lovat_sim.Playout``, the beliefs about hidden hands ``lovat_beliefs``,
the search loop ``common.halving_search``.  Docs and measured strength:
``docs/agents/search-lovat.md``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, cast

from arena.agent import Agent
from arena.games.base import Action, GameInfo
from arena.games.lovat import GAME
from arena.games.lovat.observation import LovatObservation
from arena.games.lovat.state import FACES, KEEP, PHASES, VARIANTS
from arena_agents.lovat import GreedyLovatAgent, best_keep
from arena_agents.search.common import BUDGET_OPTIONS, Budget, SearchStats, check_options, halving_search, move_rng
from arena_agents.search.lovat_beliefs import LEAN_MOVES, Evidence, Worlds, keep_rates
from arena_agents.search.lovat_policy import fitted_policy
from arena_agents.search.lovat_sim import VALUES, Playout

DEFAULT_ITERATIONS = 640
"""Playouts per move by default: 25 to 40 ms of CPU on one core (see docs/agents/search-lovat.md)."""

OPTIONS = BUDGET_OPTIONS + ("value", "playouts")
"""The options the agent accepts."""

PLAYOUTS = ("greedy", "fitted", "fitted-own")
"""Playout policies (option ``playouts``): greedy's rule for every seat; the fitted policy
(``lovat_policy``) for every seat; the fitted policy for the searching seat only, greedy's for the others."""

KEEP_PIVOTS = (20.0, 25.0, 35.0, 40.0)
"""Besides greedy's own, the pivots of greedy's keep score whose best keeps are candidates."""


# -- keep candidates ------------------------------------------------------------------------------


def keep_candidates(observation: LovatObservation) -> list[tuple[str, ...]]:
    """Good legal keeps to compare, greedy's best keep first, without repeats.

    Greedy's best keep; the best keep (by greedy's score) of every legal size, from few
    strong cards and many counters to many weak cards; the best keeps for the pivots in
    ``KEEP_PIVOTS`` (a lower pivot values middling cards more).
    """
    obs = observation
    found: list[tuple[str, ...]] = []

    def add(min_size: int, max_size: int, pivot: float) -> None:
        try:
            keep = best_keep(obs.dealt, obs.level_sum, min_size, max_size, pivot)
        except ValueError:  # no legal keep of that size
            return
        if keep not in found:
            found.append(keep)

    add(obs.min_size, obs.max_size, GreedyLovatAgent.keep_pivot)
    for size in range(obs.min_size, obs.max_size + 1):
        add(size, size, GreedyLovatAgent.keep_pivot)
    for pivot in KEEP_PIVOTS:
        add(obs.min_size, obs.max_size, pivot)
    return found


# -- the agent ----------------------------------------------------------------------------------------


class SearchLovatAgent(Agent):
    """Determinized Monte Carlo search with greedy playouts (see the module docstring)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        check_options(self.options, OPTIONS, "search")
        self.budget = Budget.from_options(self.options, DEFAULT_ITERATIONS)
        self.value_kind = self.options.get("value", "rank")
        if self.value_kind not in VALUES:
            raise ValueError(f"agent option 'value' must be one of {', '.join(VALUES)}, not {self.value_kind!r}")
        self.playouts = self.options.get("playouts", "greedy")
        if self.playouts not in PLAYOUTS:
            raise ValueError(f"agent option 'playouts' must be one of {', '.join(PLAYOUTS)}, not {self.playouts!r}")
        self.policy = None if self.playouts == "greedy" else fitted_policy()
        self.policy_seats = None if self.playouts == "fitted" else (seat,)
        self.lean_moves = LEAN_MOVES
        self.tilt = True
        keep_rates(players)  # computed once per process, at start-up rather than in the first move
        self.greedy = GreedyLovatAgent(seat=seat, game=game, players=players, seed=seed, options={})
        self.stats: SearchStats[Action] | None = None  # the last search (None: decided without search)

    def act(self, observation: LovatObservation) -> Action:  # type: ignore[override]
        obs = observation
        self.stats = None
        if obs.phase == KEEP:
            candidates: list[Action] = list(keep_candidates(obs))
        else:
            if len(obs.legal) == 1:
                return obs.legal[0]
            first = self.greedy.act(obs)
            candidates = [first] + [action for action in obs.legal if action != first]
        if len(candidates) == 1:
            return candidates[0]
        rng = move_rng(
            self.seed, PHASES.index(obs.phase), obs.turn, len(obs.declarations), len(obs.plays), len(obs.void_discards)
        )
        if obs.phase == KEEP:
            sample, playout = self._keep_search(obs)
        else:
            sample, playout = self._turn_search(obs)
        action, self.stats = halving_search(candidates, sample, playout, self.budget, rng)
        return action

    def _dice(self, rng: random.Random) -> list[int]:
        """Die faces for every turn of the die round still to roll (at most one per seat, L-14)."""
        return [rng.randrange(len(FACES)) for _ in range(self.players)]

    def _finish(self, game: Playout) -> None:
        """Play a playout to the end by the agent's playout policy (option ``playouts``)."""
        if self.policy is None:
            game.run()
        else:
            self.policy.run(game, self.policy_seats)

    def _turn_search(self, obs: LovatObservation) -> tuple[Any, Any]:
        """Sampler and playout for a decision after the keeps."""
        seat, kind = self.seat, self.value_kind

        worlds = Worlds(obs, Evidence(obs), self.lean_moves, tilt=self.tilt)

        def sample(rng: random.Random) -> Playout:
            return worlds.draw(rng, self._dice(rng))

        def playout(world: Playout, action: Action, rng: random.Random) -> float:
            game = world.copy()
            game.apply(action)
            self._finish(game)
            return game.value(seat, kind)

        return sample, playout

    def _keep_search(self, obs: LovatObservation) -> tuple[Any, Any]:
        """Sampler and playout for the keep: other seats' deals sampled, their keeps greedy's."""
        seat, kind = self.seat, self.value_kind
        variant = VARIANTS[obs.players]

        pivot = GreedyLovatAgent.keep_pivot

        def sample(rng: random.Random) -> tuple[list[tuple[str, ...]], list[int]]:
            state = GAME.sample_state(obs, rng)
            keeps = [
                best_keep(state.dealt[other], variant.level_sum, variant.min_keep, variant.max_keep, pivot)
                if other != seat
                else ()
                for other in range(obs.players)
            ]
            return keeps, self._dice(rng)

        def playout(world: tuple[list[tuple[str, ...]], list[int]], keep: Action, rng: random.Random) -> float:
            keeps, dice = world
            keeps = [*keeps[:seat], cast(tuple[str, ...], keep), *keeps[seat + 1 :]]
            game = Playout.after_keeps(variant, obs.dealer, keeps, dice)
            self._finish(game)
            return game.value(seat, kind)

        return sample, playout


__all__ = ["DEFAULT_ITERATIONS", "OPTIONS", "VALUES", "Playout", "SearchLovatAgent", "keep_candidates"]
