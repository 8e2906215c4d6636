"""A fitted playout policy for Lovat: softmax-linear scores over a seat's choices, read from a small weights file.

At a colour, declaration or play decision in a ``Playout`` each legal choice gets a short
feature vector read from what the deciding seat sees (its own hand, the counters, points and
cards of the public record, the turn, the die), never another seat's hidden cards; a choice's
score is the dot product with the phase's weights, and the policy plays the best-scoring choice
(argmax of the softmax, so a playout stays deterministic for its world and dice).  Every
feature set starts with "is greedy's choice", so the fitted weights describe where a stronger
player departs from greedy's rule.  Void discards stay greedy's.

The weights are fitted by ``benchmarks/fit_lovat_policy.py`` to the decisions of a stronger
player (by default the search itself in self-play) and stored as JSON (``WEIGHTS_FILE``).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from arena.games.lovat.deck import COLOURS
from arena_agents.lovat import GreedyLovatAgent
from arena_agents.search.lovat_cards import (
    _BEST,
    _BEST_COLOUR,
    _BLANK,
    _BY_COLOUR,
    _COLOUR,
    _DECLARE,
    _LEAD_KEY,
    _LEVEL,
    _OVER,
    _PLAY,
    _WEAK_KEY,
    _turns_after_table,
)
from arena_agents.search.lovat_sim import Playout, void_turn

WEIGHTS_FILE = Path(__file__).with_name("lovat_policy.json")
"""The fitted weights (written by ``benchmarks/fit_lovat_policy.py``)."""

FEATURES: dict[str, tuple[str, ...]] = {
    "declare": (
        "greedy",  # greedy's rule declares play
        "bias",
        "best",  # the hand's strongest card in the colour, / 50
        "second",  # its second strongest, / 50
        "rolled",  # the die named the colour (the last round, L-14)
        "spare",  # cards beyond one for each own turn to come, at most 3, / 3
        "playing",  # seats that declared play before it this turn, / (players - 1)
        "after",  # seats still to declare after it, / (players - 1)
        "lead",  # its points minus the best other seat's, clipped to +-3, / 3
        "progress",  # the turn, / turns
        "top",  # its strongest card is the colour's strongest (strength 50: cannot lose)
    ),
    "play": (
        "greedy",  # greedy's card
        "strength",  # the card's strength in the colour, / 50
        "wins",  # it beats the cards shown so far (always, for the active player's lead)
        "exposed",  # wins now, times the seats still to play after it, / (players - 1)
        "worth",  # the card's best strength in any colour, / 50 (what it may win later)
        "level",  # its level, / 3 (the L-16 tie-break)
        "lead",  # the active player's card, times its strength, / 50
    ),
    "colour": (
        "greedy",  # greedy's colour
        "best",  # the hand's strongest card in the colour, / 50
        "second",  # its second strongest, / 50
        "strong",  # share of the hand with strength 30 or more in the colour
    ),
}
"""Each phase's features of one choice (a declaration's "pass" has all features 0, so "play" carries the score)."""

PHASE_NAMES = {_DECLARE: "declare", _PLAY: "play", _COLOUR: "colour"}
"""The playout phases the policy decides, by name (void discards are greedy's)."""


def declare_features(game: Playout, greedy: int) -> list[float]:
    """The features of declaring play for the pending seat (``greedy``: greedy's decision, 1 or 0)."""
    seat = game.queue[0]
    hand = game.hands[seat]
    players = game.players
    others = players - 1
    by_colour = _BY_COLOUR[game.colour]
    strengths = sorted((by_colour[card] for card in hand), reverse=True)
    best = strengths[0] if strengths else 0
    second = strengths[1] if len(strengths) > 1 else 0
    spare = len(hand) - game._own_turns_left(seat)
    after = len(game.queue) - 1
    decided = others - len(game.queue)  # the seats before it in this turn's declarations
    passed = sum(game.passed)
    points = game.points
    rival = max(points[other] for other in range(players) if other != seat)
    lead = max(-3, min(3, points[seat] - rival))
    return [
        float(greedy),
        1.0,
        best / 50,
        second / 50,
        1.0 if game.rolled else 0.0,
        max(0, min(3, spare)) / 3,
        (decided - passed) / others,
        after / others,
        lead / 3,
        game.turn / game.turns,
        1.0 if best >= 50 else 0.0,
    ]


def play_features(game: Playout, card: int, greedy: int) -> list[float]:
    """The features of playing ``card`` for the pending seat (``greedy``: greedy's card)."""
    seat = game.queue[0]
    strength = _BY_COLOUR[game.colour][card]
    wins = strength > game.best_strength
    others = game.players - 1
    leading = seat == game.active
    return [
        1.0 if card == greedy else 0.0,
        strength / 50,
        1.0 if wins else 0.0,
        (len(game.queue) - 1) / others if wins else 0.0,
        _BEST[card] / 50,
        _LEVEL[card] / 3,
        strength / 50 if leading else 0.0,
    ]


def colour_features(game: Playout, colour: int, greedy: int) -> list[float]:
    """The features of naming ``colour`` for the pending seat (``greedy``: greedy's colour)."""
    hand = game.hands[game.queue[0]]
    by_colour = _BY_COLOUR[colour]
    strengths = sorted((by_colour[card] for card in hand), reverse=True)
    return [
        1.0 if colour == greedy else 0.0,
        strengths[0] / 50,
        (strengths[1] if len(strengths) > 1 else 0) / 50,
        sum(1 for strength in strengths if strength >= 30) / len(hand),
    ]


def choices(game: Playout) -> tuple[str, list[int], list[list[float]]] | None:
    """The pending decision as (phase name, legal choices in playout form, their features); None if forced or void.

    A forced decision (one legal choice) and a void discard are not the policy's to make.
    """
    phase = game.phase
    name = PHASE_NAMES.get(phase)
    if name is None:
        return None
    legal = game.legal()
    if len(legal) < 2:
        return None
    greedy = game.greedy_action()
    if phase == _DECLARE:
        return name, [0, 1], [[0.0] * len(FEATURES[name]), declare_features(game, greedy)]
    if phase == _PLAY:
        return name, legal, [play_features(game, card, greedy) for card in legal]
    return name, legal, [colour_features(game, colour, greedy) for colour in range(len(COLOURS))]


class FittedPolicy:
    """The softmax-linear playout policy: per phase, one weight per feature (``FEATURES``).

    The scores are the features' dot products with the weights, computed directly (the
    feature vectors of ``choices`` are for fitting and checks): per card the part that does
    not depend on the turn is a table, so a decision costs a few operations per choice.
    """

    def __init__(self, weights: Mapping[str, Sequence[float]]) -> None:
        for name, features in FEATURES.items():
            if len(weights.get(name, ())) != len(features):
                raise ValueError(f"fitted policy weights for {name!r}: need {len(features)} numbers")
        self.weights = {name: tuple(float(w) for w in weights[name]) for name in FEATURES}
        d = self.weights["declare"]
        self._declare = (d[0], d[1], d[2] / 50, d[3] / 50, d[4], d[5] / 3, d[6], d[7], d[8] / 3, d[9], d[10])
        p = self.weights["play"]
        self._play = (p[0], p[1] / 50, p[2], p[3], p[6] / 50)
        self._card = tuple(p[4] * _BEST[card] / 50 + p[5] * _LEVEL[card] / 3 for card in range(len(_BEST)))
        self._colour = self.weights["colour"]

    def declare_score(self, game: Playout, seat: int, greedy: int, spare: int, decided: int, passed: int) -> float:
        """The score of declaring play (passing scores 0): ``decided`` seats before it this turn, ``passed`` passed."""
        w_greedy, bias, w_best, w_second, w_rolled, w_spare, w_playing, w_after, w_lead, w_progress, w_top = (
            self._declare
        )
        by_colour = _BY_COLOUR[game.colour]
        best = second = 0
        for card in game.hands[seat]:
            strength = by_colour[card]
            if strength > best:
                best, second = strength, best
            elif strength > second:
                second = strength
        players = game.players
        others = players - 1
        points = game.points
        rival = max(points[other] for other in range(players) if other != seat)
        return (
            w_greedy * greedy
            + bias
            + w_best * best
            + w_second * second
            + (w_rolled if game.rolled else 0.0)
            + w_spare * max(0, min(3, spare))
            + w_playing * (decided - passed) / others
            + w_after * (others - decided - 1) / others
            + w_lead * max(-3, min(3, points[seat] - rival))
            + w_progress * game.turn / game.turns
            + (w_top if best >= 50 else 0.0)
        )

    def card(self, hand: Sequence[int], colour: int, to_beat: int, after: int, others: int, leading: bool,
             greedy: int) -> int:
        """The best-scoring card of ``hand`` (the first on ties): ``to_beat`` the strength shown so far (-1 before
        any), ``after`` the seats still to play after it, ``greedy`` greedy's card."""
        w_greedy, w_strength, w_wins, w_exposed, w_lead = self._play
        if leading:
            w_strength += w_lead
        wins_bonus = w_wins + w_exposed * after / others
        static = self._card
        by_colour = _BY_COLOUR[colour]
        best_card, best_score = -1, -math.inf
        for card in hand:
            strength = by_colour[card]
            score = static[card] + w_strength * strength
            if strength > to_beat:
                score += wins_bonus
            if card == greedy:
                score += w_greedy
            if score > best_score:
                best_card, best_score = card, score
        return best_card

    def colour(self, hand: Sequence[int], greedy: int) -> int:
        """The best-scoring colour to name with ``hand`` (the first on ties; ``greedy``: greedy's colour)."""
        w_greedy, w_best, w_second, w_strong = self._colour
        best_colour, best_score = -1, -math.inf
        for colour in range(len(COLOURS)):
            by_colour = _BY_COLOUR[colour]
            best = second = strong = 0
            for card in hand:
                strength = by_colour[card]
                if strength > best:
                    best, second = strength, best
                elif strength > second:
                    second = strength
                if strength >= 30:
                    strong += 1
            score = (w_best * best + w_second * second) / 50 + w_strong * strong / len(hand)
            if colour == greedy:
                score += w_greedy
            if score > best_score:
                best_colour, best_score = colour, score
        return best_colour

    def action(self, game: Playout) -> int:
        """The pending seat's decision in playout form: the best-scoring choice (ties to the first), else greedy's."""
        phase = game.phase
        greedy = game.greedy_action()
        if phase not in PHASE_NAMES or len(game.legal()) < 2:
            return greedy
        seat = game.queue[0]
        if phase == _DECLARE:
            decided = game.players - 1 - len(game.queue)
            spare = len(game.hands[seat]) - game._own_turns_left(seat)
            return 1 if self.declare_score(game, seat, greedy, spare, decided, sum(game.passed)) > 0 else 0
        hand = game.hands[seat]
        if phase == _PLAY:
            return self.card(hand, game.colour, game.best_strength, len(game.queue) - 1, game.players - 1,
                             seat == game.active, greedy)
        return self.colour(hand, greedy)

    def run(self, game: Playout, seats: Collection[int] | None = None) -> None:
        """Play ``game`` out with ``seats`` (every seat if None) on this policy and the others on greedy's rule.

        The current turn is finished step by step; the later turns are played whole by
        ``_turns`` (the same decisions, unrolled, like ``Playout.run``).
        """
        if seats is None:
            seats = range(game.players)
        turn = game.turn
        while game.phase != _OVER and game.turn == turn:
            game.step(self.action(game) if game.queue[0] in seats else game.greedy_action(), start_next=False)
        self._turns(game, seats)

    def _turns(self, game: Playout, seats: Collection[int]) -> None:
        """Every turn from the start of the current one to the end, ``seats`` on this policy (see ``run``)."""
        players, turns, first, die_from = game.players, game.turns, game.first, game.die_from
        hands, counters, points, levels = game.hands, game.counters, game.points, game.levels
        dice, die_index = game.dice, game.die_index
        weak_key = _WEAK_KEY.__getitem__
        declare_strength = GreedyLovatAgent.declare_strength
        die_declare_strength = GreedyLovatAgent.die_declare_strength
        turns_after_table = _turns_after_table(first, players, turns)
        others_count = players - 1
        mine = [seat in seats for seat in range(players)]
        turn = game.turn
        while turn < turns:
            turns_after = turns_after_table[turn]
            active = (first + turn) % players
            others = [(active + step) % players for step in range(1, players)]
            lead = hands[active]
            if not lead:  # L-12: void turn (discards stay greedy's)
                void_turn(hands, counters, points, levels, active, others, turns_after)
                turn += 1
                continue
            threshold = declare_strength
            rolled = False
            if turn >= die_from and dice[die_index] != _BLANK:  # L-14
                colour = dice[die_index]
                die_index += 1
                threshold = die_declare_strength
                rolled = True
            else:
                if turn >= die_from:
                    die_index += 1  # blank: the active player names the colour
                colour = _BEST_COLOUR[max(lead, key=weak_key)]
                if mine[active]:
                    colour = self.colour(lead, colour)
            game.turn, game.colour, game.rolled = turn, colour, rolled  # what declare_score reads
            strength = _BY_COLOUR[colour]
            strength_of = strength.__getitem__
            playing = []
            passed = 0
            for decided, seat in enumerate(others):  # L-10 (2), L-11
                hand = hands[seat]
                if not counters[seat]:
                    playing.append(seat)
                    continue
                if hand:
                    spare = len(hand) - turns_after[seat]
                    play = spare > 0 and max(map(strength_of, hand)) >= threshold
                    if mine[seat]:
                        play = self.declare_score(game, seat, int(play), spare, decided, passed) > 0
                    if play:
                        playing.append(seat)
                        continue
                counters[seat] -= 1
                passed += 1
            if len(lead) == 1:
                card = lead[0]
            else:
                if playing:
                    card = max(lead, key=_LEAD_KEY[colour].__getitem__)
                else:
                    card = min(lead, key=weak_key)  # L-13: wins by default
                if mine[active]:
                    card = self.card(lead, colour, -1, len(playing), others_count, True, card)
            lead.remove(card)
            best_seat, best_card, best = active, card, strength[card]
            for index, seat in enumerate(playing):  # L-10 (4)
                hand = hands[seat]
                if len(hand) == 1:
                    card = hand[0]
                else:
                    winners = [card for card in hand if strength[card] > best]
                    card = min(winners or hand, key=weak_key)
                    if mine[seat]:
                        card = self.card(hand, colour, best, len(playing) - index - 1, others_count, False, card)
                hand.remove(card)
                if strength[card] > best:  # L-13: a tie goes to the card played first
                    best_seat, best_card, best = seat, card, strength[card]
            points[best_seat] += 1
            levels[best_seat] += _LEVEL[best_card]
            turn += 1
        game.turn = turn
        game.die_index = die_index
        game.phase = _OVER
        game.queue = []


@functools.cache
def fitted_policy(path: Path = WEIGHTS_FILE) -> FittedPolicy:
    """The policy of a weights file (read once per process)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return FittedPolicy(data["weights"])
