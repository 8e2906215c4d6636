"""``SearchLorumAgent``: determinized Monte Carlo search for Slovak Lorum.

At each decision with more than one legal action the agent

1. samples hidden deals consistent with its observation (``sampler.HiddenHands``:
   uniform over the deals that fit the public voids and must-beat facts).  Once the
   others have played cards this deal, the worlds come instead from ``WorldChain``, a
   Metropolis chain over such deals that draws each in proportion to how well it explains
   their play (a seat's card counts 1 if its style's rules would have played it there,
   else ``MODEL_EPSILON``), so worlds in which the others played as modelled dominate.
   Each other seat is modelled by a style: for its calls, leads, follows and void
   discards, each one of ``lorum_sim.FAMILIES`` (the rollout policy, or the ducking or
   cautious rule of a simpler player), drawn with each world from what the seat has shown:
   this deal's play, and the deals of the game that ended (``StyleMemory``);
2. in each world plays every candidate out: the candidate, then the rest of the
   current deal (remaining calls and all tricks) by fast rules in which every seat
   decides from its own hand and the public cards only (the others by their styles,
   the seat by the rollout policy), except that after a card the seat's own later cards
   (void discards apart) are each chosen by playing out its candidates in that world
   (``play_out_searching``), as it will search there too;
3. scores a playout by the seat's chip change over the current deal (settled by the
   engine's own ``settle_regular`` / ``settle_contract``, so pot, splits and contract
   stakes count exactly as in the game) plus what that change does to its expected
   standing at the end of the game (``lorum_value.deal_value``: the ranks decide a game);
4. plays the candidate with the best mean (common random numbers: all candidates
   share each world, so their comparison is not blurred by the luck of the deal).

The bid is judged the same way: ``pass``, ``small`` and ``big`` are each played out
over the same sampled deals, and the call with the best expected value wins.
Cards that are interchangeable (same suit, nothing of the others' between them, in
play or in the current trick, the same points) are searched once.

Playouts run on ``lorum_sim.PlayoutDeal``, a bare simulator of one deal on card masks (several
times faster than driving ``LorumState``); a test checks it against the engine.  The opponent
model is ``lorum_beliefs`` and ``lorum_styles``, the value of a playout ``lorum_value``, the
search loop ``common.determinized_search``.  The agent remembers the others' styles from one
deal to the next, so its moves depend on the observations it has been given this game, in
order, as well as on its seed.

Options (``self.options``): ``iterations`` playouts per move (default
``DEFAULT_ITERATIONS``, deterministic for a seed), and/or ``ms`` milliseconds per move
(time-dependent).  The last decision's figures are kept in ``self.stats``.
See ``docs/agents/search-lorum.md`` for the measured strength and speed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from arena.agent import Agent
from arena.games.base import Action, GameInfo, Observation
from arena.games.lorum.cards import ABOVE_MASKS, DECK, FULL_DECK_MASK, INDEX, POINTS, SUIT_MASKS, indices_of, mask_of
from arena.games.lorum.observation import LorumObservation
from arena.games.lorum.sampler import HiddenHands
from arena.games.lorum.state import PLAYERS
from arena_agents.search.common import BUDGET_OPTIONS, Budget, SearchStats, check_options, determinized_search, move_rng
from arena_agents.search.lorum_beliefs import MAX_WORLDS, WorldChain, deal_plays, draw_styles
from arena_agents.search.lorum_sim import PlayoutDeal, Style, card_rule, play_out, rollout_card
from arena_agents.search.lorum_styles import StyleMemory
from arena_agents.search.lorum_value import deal_value

DEFAULT_ITERATIONS = 240
"""Playouts per move by default: about 23 ms mean and at most about 150 ms of CPU a move against greedy agents
(docs/agents/search-lorum.md)."""

BID_FACTOR = 3
"""The bid searches this many times the playouts of a move, over up to ``BID_WORLDS`` worlds: once a deal, it
decides most of the deal's chips, and the estimate of a small contract's chance needs the worlds (measured
against the move's budget: +0.007 pairwise share against greedy, 155 seeds, docs/agents/search-lorum.md)."""

BID_WORLDS = 240
"""At most this many worlds for the bid (``MAX_WORLDS`` for a card)."""

OPTIONS = BUDGET_OPTIONS
"""The options the agent accepts."""


# ------------------------------------------------------------------ the agent


def card_candidates(deal: PlayoutDeal, trick: int | None = None, first: int | None = None) -> list[int]:
    """The legal cards of the seat to move, one per class of interchangeable cards.

    Two cards of one suit are interchangeable when every card still in play
    between them is in the same hand (so they beat and lose to exactly the same
    cards of the others) and they carry the same points (S-9).  ``trick`` is the
    mask of the cards already in the current trick (``deal.trick_cards`` unless
    given otherwise): they are still in play, since
    whether our card goes over or under them decides who takes the trick (the
    ``Ka`` and ``9a`` of a hand that also holds ``Oa`` are not interchangeable
    over a ``10a``).  The highest card of each class stands for it, but for the legal
    card ``first``, which comes first and stands for its own class.
    """
    hand = deal.hands[deal.to_act]
    live = FULL_DECK_MASK & ~deal.played | (deal.trick_cards if trick is None else trick)
    order = indices_of(deal.legal())
    if first is not None:
        order.remove(first)
        order.insert(0, first)
    chosen: list[int] = []
    for card in order:
        if not any(
            other >> 3 == card >> 3
            and POINTS[other] == POINTS[card]
            and not (ABOVE_MASKS[card] ^ ABOVE_MASKS[other]) & live & ~hand  # between them (and the higher, in hand)
            for other in chosen
        ):
            chosen.append(card)
    return chosen


def play_out_searching(deal: PlayoutDeal, me: int, value: Callable[[tuple[int, ...]], float]) -> float:
    """Finish ``deal`` (its contract fixed) in place and return its ``value``: each seat by its style, but for ``me``.

    At each of those with a choice (``card_candidates``) that is not a void discard,
    ``me`` plays out every candidate (each seat by its style) in this world and plays the
    best.  In the game the seat searches again at each of its decisions, so a playout in
    which it plays the rollout policy's card undervalues the positions where its later
    choice matters.  This look-ahead sees the world's hands, which the seat will not, so
    a void discard keeps the policy's (the costliest card first): a point card kept in
    hand can always be placed safely by a player who sees every hand, and valued that way
    the search would keep the green Ober instead of dropping it on a trick it cannot win.
    """
    rules = [card_rule(style) for style in deal.styles]  # ``me`` on the rollout policy
    while not deal.over:
        if deal.to_act == me and not (deal.in_trick and not deal.hands[me] & SUIT_MASKS[deal.led]):
            cards = card_candidates(deal)
            if len(cards) > 1:
                deal.play(max(cards, key=lambda card: value(play_out(_after(deal, card)))))
                continue
        deal.play(rules[deal.to_act](deal))
    return value(deal.chip_changes())


def _after(deal: PlayoutDeal, card: int) -> PlayoutDeal:
    """A copy of ``deal`` with ``card`` played."""
    branch = deal.copy()
    branch.play(card)
    return branch


class SearchLorumAgent(Agent):
    """Determinized Monte Carlo search over the current deal's chips and standing (see the module docstring)."""

    def __init__(self, seat: int, game: GameInfo, players: int, seed: int, options: Mapping[str, Any]) -> None:
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        check_options(self.options, OPTIONS, "search")
        self.budget = Budget.from_options(self.options, DEFAULT_ITERATIONS)
        self.stats: dict[str, Any] = {}  # the last decision's search figures (SearchStats.to_json), {} if none
        self.style_memory = StyleMemory()  # the rules the other seats have been playing this game

    def act(self, observation: Observation) -> Action:
        """The legal action with the best mean value over sampled deals (chips plus standing, ``deal_value``)."""
        if not isinstance(observation, LorumObservation):
            raise TypeError(f"SearchLorumAgent needs a LorumObservation, not {type(observation).__name__}")
        if not observation.legal:
            raise ValueError(f"seat {self.seat} has no legal action: it is seat {observation.to_move}'s turn")
        self.style_memory.learn(observation)
        me = self.seat
        own = [0] * PLAYERS
        own[me] = mask_of(observation.hand)
        template = PlayoutDeal.from_observation(observation, own)
        if observation.phase == "bid":
            candidates: list[Action] = list(observation.legal)
        else:
            # Exact ties go to the first candidate: the rollout policy's card, so that a position every world
            # calls lost (or won) whatever the seat plays is played as the policy plays it.
            candidates = [DECK[card] for card in card_candidates(template, first=rollout_card(template))]
        if len(candidates) == 1:  # one legal action, or several that are all the same
            self.stats = SearchStats().to_json()
            return candidates[0]

        balances = observation.balances
        remaining = observation.deals - observation.deal  # deals still to come after this one

        def value(changes: tuple[int, ...]) -> float:
            return deal_value(me, balances, changes, remaining)

        def playout(world: PlayoutDeal, action: Action, _rng: random.Random) -> float:
            if world.contract is None:  # the bid: the seat's cards are played by the rollout policy
                deal = world.copy()
                deal.bid(me, cast(str, action))
                return value(play_out(deal))
            return play_out_searching(_after(world, INDEX[cast(str, action)]), me, value)

        rng = move_rng(self.seed, observation.deal, len(observation.bids), len(observation.played))
        prior = self.style_memory.prior()
        # Only the others' cards this deal tell much about their hands and styles (the policy's bids are rare):
        # once they have played, the worlds come from a chain that draws them in proportion to how well they
        # explain it; before, the hands are uniform and the styles drawn from what the past deals showed.
        if any(seat != me for seat, _card in deal_plays(observation)):
            chain = WorldChain(observation, rng, prior=prior)

            def hidden(rng: random.Random) -> tuple[list[int], Sequence[Style]]:
                return chain.draw(rng), chain.styles  # the styles of the world just drawn

        else:
            uniform = HiddenHands(observation)

            def hidden(rng: random.Random) -> tuple[list[int], Sequence[Style]]:
                return uniform.draw(rng), draw_styles(prior, me, rng)

        def sample(rng: random.Random) -> PlayoutDeal:
            deal = template.copy()
            deal.hands, deal.styles = hidden(rng)
            return deal

        budget, max_worlds = self.budget, MAX_WORLDS
        if observation.phase == "bid" and budget.iterations is not None:
            budget, max_worlds = Budget(budget.iterations * BID_FACTOR, budget.ms), BID_WORLDS
        stats: SearchStats[Action] = determinized_search(
            candidates,
            sample,
            playout,
            budget,
            rng,
            max_worlds=max_worlds,
        )
        self.stats = stats.to_json()
        return stats.best()
