"""The game conformance kit: ``check_game(game)`` checks any game against the interface, as PettingZoo's ``api_test``.

Game authors call it from their own tests (``plugins/example-game/tests``); arena's suite runs it for every
registered game (``tests/games/test_game_conformance.py``).  It plays whole games with the game's own random
policy (``GameInfo.random_action``) at every player count and checks, at each decision:

* the observation is immutable plain data (ints, floats, strings, bools, None and tuples of them): nothing
  in it references the state, the RNG or a mutable object an agent could use to reach them;
* it round-trips through JSON (``to_json``, ``observation_from_json``) to an equal observation, and so do
  the actions;
* the legal actions agree between the state and the observation (``legal_actions``, ``is_legal``,
  ``Game.action_error``), and the random policy picks a legal one;
* information hiding, through the sampler: a hidden state sampled from the seat's observation
  (``Game.sample_state``) gives that seat exactly the same observation, so the observation holds nothing
  the seat cannot know and the sampler respects everything it does know;
* cloning: a clone changed does not change the original, and the two stay equal under the same actions;
* for a game that draws its table (``Game.table``): a seat's view shows no other seat's hand, every card it
  names has a face, and the SVG is well formed with markup in the seats' names;

and at the end of each game: a sane result, a match record that survives JSON and replays to the same
result, chance log and events, the same game again from the same seed, a deck that is JSON, and every chance
outcome of a kind ``GameInfo.luck`` values among the faces it lists.

Every failure is an ``AssertionError`` whose message names the game, the players, the seed, the decision
and what to fix.
"""

from __future__ import annotations

import dataclasses
import json
import random
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.interface import Game, GameState, Observation
from arena.games.types import Action, to_json
from arena.records import action_from_json, make_record, replay
from arena.seating.substitute import SUBSTITUTE

PLAIN = (str, int, float, bool, type(None))
"""The only leaf types an observation may hold (inside tuples)."""


@dataclass(frozen=True, slots=True)
class GameCheck:
    """What ``check_game`` checked (it raises on the first failure, so everything here passed)."""

    game: str  # the game's short name
    games: int  # games played to the end
    decisions: int  # decisions checked
    samples: int  # hidden states sampled and compared (0 for a game without a sampler)


def check_game(game: Game, *, seeds: Sequence[int] = (0, 1), players: Sequence[int] | None = None,
               options: Mapping[str, Any] | None = None, samples_per_game: int = 8) -> GameCheck:
    """Check ``game`` at each player count in ``players`` (default: all) for each seed; see the module.

    ``options`` are game options besides ``players`` (default: the declared defaults).  At most
    ``samples_per_game`` decisions per game are checked through the sampler (it is the slowest check).
    Raises ``AssertionError`` naming what to fix.
    """
    _check_declarations(game)
    totals = [0, 0, 0]
    for count in players or game.info.player_counts:
        resolved = game.info.resolve_options(count, dict(options or {}))
        for seed in seeds:
            decisions, samples = _check_one_game(game, resolved, seed, samples_per_game)
            totals[0] += 1
            totals[1] += decisions
            totals[2] += samples
    return GameCheck(game.info.name, *totals)


def _check_declarations(game: Game) -> None:
    info = game.info
    where = f"{info.name}: GameInfo"
    assert info.player_counts and all(isinstance(count, int) and count >= 1 for count in info.player_counts), (
        f"{where}.player_counts must list the allowed numbers of seats")
    assert isinstance(info.score.unit, str) and info.score.unit, f"{where}.score.unit must name what scores count"
    if info.score.per_option is not None:
        assert info.score.per_option in {spec.name for spec in info.options}, (
            f"{where}.score.per_option {info.score.per_option!r} must be one of the game's options")
    for kind, _faces in info.luck.faces if info.luck is not None else ():
        assert kind in info.chance, (
            f"{where}.luck values chance kind {kind!r}, which GameInfo.chance does not declare")
    for spec in info.options:
        assert spec.description and "\n" not in spec.description, (
            f"{where}: option {spec.name!r} needs a one-line description (it is the option's --help)")
        info.resolve_options(None, {spec.name: spec.default})  # the default must be a valid value
    deck = game.deck()
    if deck is not None:
        assert all(len(row) == len(deck.columns) for row in deck.rows), (
            f"{info.name}: Game.deck() has rows whose length differs from its {len(deck.columns)} columns")
        json.dumps(to_json(list(deck.cards)))


def _check_one_game(game: Game, options: Mapping[str, Any], seed: int, samples_per_game: int) -> tuple[int, int]:
    """Play one game with the random policy, checking every decision; return (decisions, samples)."""
    label = f"{game.info.name} ({options['players']} players, seed {seed})"
    rng = random.Random(seed)
    state = game.new_state(seed, options)
    actions: list[tuple[int, Action]] = []
    events = 0
    samples = 0
    sampler = True
    while not state.is_over():
        movers = state.to_move()
        where = f"{label}, decision {len(actions)}"
        assert movers, f"{where}: to_move() is empty but is_over() is False"
        assert list(movers) == sorted(set(movers)) and all(0 <= seat < options["players"] for seat in movers), (
            f"{where}: to_move() must list seats ascending, each once, got {movers}")
        observations = {seat: state.observation(seat) for seat in movers}  # all before any applies
        if len(movers) > 1:
            phase = observations[movers[0]].phase
            assert phase in game.info.simultaneous_phases, (
                f"{where}: several seats move at once in phase {phase!r}, which GameInfo.simultaneous_phases "
                "does not declare")
        chosen: dict[int, Action] = {}
        for seat, observation in observations.items():
            _check_observation(game, state, seat, observation, f"{where}, seat {seat}")
            action = game.info.random_action(observation, rng)
            _check_action(game, state, seat, observation, action, f"{where}, seat {seat}")
            chosen[seat] = action
            if sampler and samples < samples_per_game and (len(actions) % 5 == 0 or len(actions) < 2):
                sampler = _check_sample(game, observation, seed * 7919 + len(actions), f"{where}, seat {seat}")
                samples += sampler
        if len(actions) % 9 == 0:
            _check_clone(game, state, chosen, f"{where}")
        if len(actions) % 7 == 0:
            _check_drawing(game, state, options["players"], where)
        for seat, action in chosen.items():
            state.apply(seat, action)
            actions.append((seat, action))
        new_events = state.events(events)
        json.dumps(new_events)  # events go to every agent and into logs
        for event in new_events:
            assert isinstance(game.describe_event(event), str), f"{where}: describe_event must return a string"
        events += len(new_events)
    _check_result(game, state, label)
    _check_record(game, options, seed, state, actions, label)
    _check_luck_outcomes(game, state, label)
    return len(actions), samples


def _check_luck_outcomes(game: Game, state: GameState, label: str) -> None:
    """Every logged outcome of a kind the luck correction values is one of the faces it averages over."""
    faces = game.info.luck.by_kind() if game.info.luck is not None else {}
    for index, outcome in enumerate(state.chance.log):
        if outcome["kind"] in faces:
            assert outcome["value"] in faces[outcome["kind"]], (
                f"{label}: chance outcome {index} ({outcome['kind']} {outcome['value']!r}) is not among the faces "
                "GameInfo.luck lists for it; list every outcome the game can draw")


def _check_observation(game: Game, state: GameState, seat: int, observation: Observation, where: str) -> None:
    assert isinstance(observation, game.observation_type), (
        f"{where}: observation is a {type(observation).__name__}, not the declared {game.observation_type.__name__}")
    assert (observation.game, observation.seat, observation.players) == (game.info.id, seat, state.players), (
        f"{where}: observation says game {observation.game!r}, seat {observation.seat}, {observation.players} "
        f"players; expected {game.info.id!r}, seat {seat}, {state.players} players")
    assert dataclasses.is_dataclass(observation) and type(observation).__dataclass_params__.frozen, (  # type: ignore[attr-defined]
        f"{where}: {type(observation).__name__} must be a frozen dataclass (agents must not change it)")
    for item in dataclasses.fields(observation):
        _check_plain(getattr(observation, item.name), f"{where}: observation field {item.name!r}")
    data = json.loads(json.dumps(observation.to_json()))
    again = game.observation_from_json(data)
    assert again == observation, (
        f"{where}: observation_from_json(to_json()) differs from the observation; make it the exact inverse")
    assert tuple(state.legal_actions(seat)) == tuple(observation.legal), (
        f"{where}: state.legal_actions({seat}) and observation.legal differ")
    assert game.describe_seat_hand(state, seat) == game.describe_hand(observation), (
        f"{where}: Game.describe_seat_hand(state, {seat}) differs from describe_hand of the seat's observation")
    for action in observation.legal:
        assert state.is_legal(seat, action), f"{where}: listed action {action!r} is not is_legal()"
        assert game.action_error(observation, action) is None, (
            f"{where}: Game.action_error rejects the listed action {action!r}")


def _check_drawing(game: Game, state: GameState, players: int, where: str) -> None:
    """A game that draws its table: a seat's view shows no other seat's hand, a spectator without hands none,
    every card it names has a face, and the picture is well-formed SVG."""
    spectator = game.table(state, None, False)
    if spectator is None:
        return
    assert all(view.hand is None for view in spectator.seats), (
        f"{where}: Game.table(state, None, hands=False) shows a hand; a spectator without hands sees none")
    faces = game.card_faces()
    for seat in range(players):
        table = game.table(state, seat, True)
        assert table is not None and len(table.seats) == players, f"{where}: Game.table must draw every seat"
        shown = [index for index, view in enumerate(table.seats) if view.hand is not None and index != seat]
        assert not shown, f"{where}: seat {seat}'s view of the table shows the hands of seats {shown}"
        named = [card for view in table.seats for card in (*(view.hand or ()), *view.won)]
        named += [card for _, card in table.middle]
        missing = sorted(set(named) - set(faces))
        assert not missing, f"{where}: Game.card_faces() has no face for {missing[:5]}"
    picture = game.draw(state, None, True, [f"<{seat}&>" for seat in range(players)])
    assert picture is not None
    ElementTree.fromstring(picture)  # well formed, the names' markup escaped


def _check_plain(value: Any, where: str) -> None:
    """Plain data only: a list or dict is mutable, and any other object may reach the state."""
    if isinstance(value, tuple):
        for item in value:
            _check_plain(item, where)
        return
    assert type(value) in PLAIN, (
        f"{where} holds a {type(value).__name__}: observations may hold only ints, floats, strings, bools, "
        "None and tuples of them, so that nothing in them references the game state")


def _check_action(game: Game, state: GameState, seat: int, observation: Observation, action: Action,
                  where: str) -> None:
    assert game.action_error(observation, action) is None and state.is_legal(seat, action), (
        f"{where}: GameInfo.random_action chose {action!r}, which is not legal")
    again = action_from_json(json.loads(json.dumps(to_json(action))))
    assert again == action, f"{where}: action {action!r} does not survive JSON (use a string or a tuple of strings)"


def _check_sample(game: Game, observation: Observation, seed: int, where: str) -> bool:
    """A sampled hidden state shows the seat the same observation; False when the game has no sampler."""
    try:
        sampled = game.sample_state(observation, random.Random(seed))
    except NotImplementedError:
        return False
    seen = sampled.observation(observation.seat)
    if seen != observation:
        differ = [item.name for item in dataclasses.fields(observation)
                  if getattr(seen, item.name) != getattr(observation, item.name)]
        raise AssertionError(
            f"{where}: in a hidden state sampled from this seat's observation the seat sees different "
            f"{differ}: the observation shows what the seat cannot know, or sample_state ignores what it does "
            "know (check GameState.observation and Game.sample_state)")
    return True


def _check_clone(game: Game, state: GameState, chosen: Mapping[int, Action], where: str) -> None:
    """Changing a clone leaves the original alone; the same actions keep both equal."""
    seats = range(state.players)
    before = [state.observation(seat) for seat in seats]
    twin = state.clone()
    for seat, action in chosen.items():
        twin.apply(seat, action)
    assert [state.observation(seat) for seat in seats] == before and state.to_move() == tuple(chosen), (
        f"{where}: applying actions to a clone changed the original state; clone() must copy deeply")
    copy = state.clone()
    for seat, action in chosen.items():
        copy.apply(seat, action)
    assert [copy.observation(seat) for seat in seats] == [twin.observation(seat) for seat in seats], (
        f"{where}: two clones given the same actions differ: apply() or clone() depends on something outside "
        "the state")


def _check_result(game: Game, state: GameState, label: str) -> None:
    result = state.result()
    players = state.players
    assert len(result.scores) == players and len(result.ranks) == players, (
        f"{label}: the result needs one score and one rank per seat")
    assert all(isinstance(rank, int) and 1 <= rank <= players for rank in result.ranks) and min(result.ranks) == 1, (
        f"{label}: ranks must run from 1 (best) to {players}, got {list(result.ranks)}")
    json.dumps(result.to_json())


def _check_record(game: Game, options: Mapping[str, Any], seed: int, state: GameState,
                  actions: Sequence[tuple[int, Action]], label: str) -> None:
    """The record replays through JSON to the same game; the same seed and actions give the same game."""
    seats = [{"seat": seat, "agent": SUBSTITUTE} for seat in range(state.players)]
    record = json.loads(json.dumps(make_record(game, options, seed, seats, state, actions)))
    replayed = replay(record, game).state
    assert replayed.is_over() and replayed.result().to_json() == state.result().to_json(), (
        f"{label}: the match record does not replay to the same result")
    assert replayed.events() == state.events(), f"{label}: the replayed game's events differ from the game's"
    again = game.new_state(seed, options)
    for seat, action in actions:
        again.apply(seat, action)
    assert json.loads(json.dumps(again.chance.log)) == record["chance"], (
        f"{label}: the same seed and actions give different chance outcomes: draw only from the state's Chance")
    assert again.result().to_json() == state.result().to_json(), f"{label}: the same seed gives another result"
