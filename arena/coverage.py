"""What ``arena check-agent`` must drive an agent through: every phase and case of a game, and how to reach it.

A game's ``CoveragePlan`` names its cases (Lorum: bidding, and leading and
following in regular, big and small games, following with and without
must-beat; Lovat: keep, colour, declarations, play, void turns, the die
round), tells which case a decision is in from the deciding seat's
observation, and lists scenarios that reach them: a match with chosen game
options, a scripted start of the deal (``Game.new_state(script=...)``) and
forced opening actions (the bidding that makes a contract), the checked
agent always in seat 0.  The check plays scenarios until every case has
been reached at every player count or the attempts run out; a case never
reached fails the check.

Cases are read from the match record by replaying it through the engine, so
nothing runs inside the agent's process and the agent cannot claim coverage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.base import Game
from arena.records import action_from_json

ATTEMPTS = 8
"""Scenario rounds tried before a case still unreached counts as never reached."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One match that aims at some cases."""

    label: str  # what it sets up, e.g. "small game, another seat bid"
    players: int  # seats at the table
    game_options: Mapping[str, Any]  # game options besides players (e.g. Lorum deals = 1)
    script: tuple[dict[str, Any], ...] = ()  # chance outcomes fixed up front (e.g. the dealer)
    prefix: tuple[tuple[int, str], ...] = ()  # forced opening actions (a deal's bidding, seat 0's call included)
    targets: tuple[str, ...] = ()  # the cases it is meant to reach


@dataclass(frozen=True, slots=True)
class CoveragePlan:
    """A game's cases, how to classify a decision, and the scenarios that reach the cases."""

    cases: tuple[str, ...]  # every case, in table order
    classify: Callable[[Any], tuple[str, ...]]  # observation of the deciding seat -> the cases it is in
    scenarios: Callable[[Game, int], tuple[Scenario, ...]]  # (game, players) -> scenarios for that count


@dataclass(slots=True)
class Coverage:
    """Decisions the checked agent made in each case, per player count."""

    plan: CoveragePlan
    player_counts: tuple[int, ...]
    decisions: dict[tuple[int, str], int] = field(default_factory=dict)  # (players, case) -> decisions

    def add_match(self, game: Game, record: Mapping[str, Any], seat: int, forced: int) -> None:
        """Count the decisions ``seat`` made itself in a recorded match (not the ``forced`` opening actions,
        nor a substitute's after the seat's first fault)."""
        players = record["options"]["players"]
        state = game.new_state(record["seed"], record["options"], script=record["chance"])
        stop = min((fault["move"] for fault in record["faults"] if fault["seat"] == seat), default=None)
        for move, entry in enumerate(record["actions"]):
            if stop is not None and move > stop:
                break
            if entry["seat"] == seat and move >= forced:
                for case in self.plan.classify(state.observation(seat)):
                    key = (players, case)
                    self.decisions[key] = self.decisions.get(key, 0) + 1
            state.apply(entry["seat"], action_from_json(entry["action"]))

    def missing(self, players: int | None = None) -> list[tuple[int, str]]:
        """(players, case) pairs never reached, in table order."""
        counts = self.player_counts if players is None else (players,)
        return [(count, case) for count in counts for case in self.plan.cases
                if not self.decisions.get((count, case))]

    def to_json(self) -> dict[str, dict[str, int]]:
        """``{players: {case: decisions}}`` with every case listed (zeros included)."""
        return {str(count): {case: self.decisions.get((count, case), 0) for case in self.plan.cases}
                for count in self.player_counts}

    def table(self) -> list[str]:
        """The coverage table: one line per case, decisions per player count, ``MISSING`` where none."""
        width = max(len(case) for case in self.plan.cases)
        header = "  " + "case".ljust(width) + "".join(f"  {count} players".rjust(12) for count in self.player_counts)
        lines = [header]
        for case in self.plan.cases:
            cells = "".join(str(self.decisions.get((count, case), 0) or "MISSING").rjust(12)
                            for count in self.player_counts)
            lines.append("  " + case.ljust(width) + cells)
        return lines


# -- Slovak Lorum -------------------------------------------------------------------------------------

LORUM_CASES = ("bidding", "regular: lead", "regular: follow", "big: lead", "big: follow", "small: lead",
               "small: follow, must beat", "small: follow, free")
"""Lorum's cases: S-4 bidding; S-6/S-7 leading and following in each contract; S-8 must-beat in the small game."""


def _lorum_cases(observation: Any) -> tuple[str, ...]:
    from arena.games.lorum.cards import ABOVE_MASKS, SUIT_MASKS, card_index, mask_of, suit_of

    if observation.contract is None:
        return ("bidding",)
    if not observation.trick:
        return (f"{observation.contract}: lead",)
    if observation.contract != "small":
        return (f"{observation.contract}: follow",)
    cards = [card_index(card) for _, card in observation.trick]
    led = suit_of(cards[0])
    trick = sum(1 << card for card in cards)
    best = next(card for card in cards if suit_of(card) == led and not ABOVE_MASKS[card] & trick)
    able = mask_of(observation.hand) & SUIT_MASKS[led] & ABOVE_MASKS[best]
    return ("small: follow, must beat" if able else "small: follow, free",)


def _lorum_scenarios(game: Game, players: int) -> tuple[Scenario, ...]:
    """One-deal games whose bidding is forced: seat 3 deals, so seat 0 bids first and leads a regular game."""
    dealer = ({"kind": "dealer", "value": players - 1},)
    options = {"deals": 1}
    order = [(players - 1 + step) % players for step in range(1, players + 1)]  # dealer's next first (S-4)

    def bids(bidder: int | None, call: str) -> tuple[tuple[int, str], ...]:
        return tuple((seat, call if seat == bidder else "pass") for seat in order)

    return (
        Scenario("regular game (everyone passed)", players, options, dealer, bids(None, "pass"),
                 ("regular: lead", "regular: follow")),
        Scenario("big game, the agent bid", players, options, dealer, bids(0, "big"), ("big: lead",)),
        Scenario("big game, another seat bid", players, options, dealer, bids(1, "big"), ("big: follow",)),
        Scenario("small game, the agent bid", players, options, dealer, bids(0, "small"),
                 ("small: lead", "small: follow, must beat", "small: follow, free")),
        Scenario("small game, another seat bid", players, options, dealer, bids(1, "small"),
                 ("small: lead", "small: follow, must beat", "small: follow, free")),
        Scenario("a whole game, bidding freely", players, {}, (), (), ("bidding",)),
    )


# -- Lovat ------------------------------------------------------------------------------------------------

LOVAT_CASES = ("keep", "colour", "declare", "play", "void turn", "die round")
"""Lovat's cases: the keep (L-5), naming a colour, declarations and plays (L-10), discarding on another seat's
void turn (L-12), and any decision in the die round (L-14)."""


def _lovat_cases(observation: Any) -> tuple[str, ...]:
    phase = "void turn" if observation.phase == "void" else observation.phase
    return (phase, "die round") if observation.die_round else (phase,)


def _lovat_scenarios(game: Game, players: int) -> tuple[Scenario, ...]:
    return (Scenario("a whole game", players, {}, (), (), LOVAT_CASES),)


PLANS: dict[str, CoveragePlan] = {
    "lorum": CoveragePlan(LORUM_CASES, _lorum_cases, _lorum_scenarios),
    "lovat": CoveragePlan(LOVAT_CASES, _lovat_cases, _lovat_scenarios),
}
"""Coverage plans by game short name; a game without one is checked without a coverage table."""


def scenarios_for(coverage: Coverage, game: Game, players: int) -> Sequence[Scenario]:
    """The scenarios at ``players`` that still aim at an unreached case."""
    missing = {case for _, case in coverage.missing(players)}
    return [scenario for scenario in coverage.plan.scenarios(game, players) if missing & set(scenario.targets)]
