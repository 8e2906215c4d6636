"""Games draw their table: every card the state holds is drawn, a seat's view hides the other hands, and every
text an agent's author chose is escaped."""

from __future__ import annotations

import importlib
import random
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.games.drawing import CardFace, SeatView, Table, svg
from arena.games.lovat.deck import COLOURS, STRENGTH
from arena.plugins import load_registry

EXAMPLE_GAME = Path(__file__).resolve().parents[2] / "plugins" / "example-game" / "src"
SVG = "{http://www.w3.org/2000/svg}"


def registry() -> Any:
    return load_registry(plugins_dir=None).registry


def played(game: Any, players: int, moves: int, seed: int = 3) -> Any:
    """A state after ``moves`` random decisions (or the end)."""
    state = game.new_state(seed, game.info.resolve_options(players, {}))
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_over():
            break
        seat = state.to_move()[0]
        state.apply(seat, game.info.random_action(state.observation(seat), rng))
    return state


def shapes(picture: str) -> tuple[list[str], int]:
    """The ids of the face-up cards an SVG draws, and its face-down cards (parsing it: it must be well formed)."""
    root = ElementTree.fromstring(picture)
    faces = [node.get("data-card", "") for node in root.iter(f"{SVG}g") if node.get("class") == "card"]
    backs = sum(1 for node in root.iter(f"{SVG}rect") if node.get("class") == "card-back")
    return faces, backs


def engine_cards(game: Any, state: Any) -> tuple[list[tuple[str, ...]], int]:
    """Every hand, and how many other cards are on the table (the middle, the cards won), from the engine."""
    players = len(state.observation(0).hand_sizes)
    hands = [tuple(state.observation(seat).hand) for seat in range(players)]
    public = state.observation(0)
    if game.info.name == "lorum":
        return hands, len(public.trick) or (len(public.tricks[-1][0]) if public.tricks and public.phase != "bid"
                                            else 0)
    return hands, len(public.plays) + sum(len(cards) for cards in public.point_cards)


@pytest.mark.parametrize("name, players, moves", [("lorum", 4, 0), ("lorum", 4, 9), ("lorum", 4, 13),
                                                  ("lovat", 3, 3), ("lovat", 4, 14), ("lovat", 6, 30)])
def test_every_card_the_state_holds_is_drawn(name: str, players: int, moves: int) -> None:
    game = registry().game(name)
    state = played(game, players, moves)
    hands, others = engine_cards(game, state)
    faces, backs = shapes(game.draw(state))
    assert backs == 0 and len(faces) == sum(map(len, hands)) + others == game.table(state).cards() > 0
    for hand in hands:
        assert set(hand) <= set(faces)
    faces, backs = shapes(game.draw(state, hands=False))  # a spectator without the hands: backs, counted
    assert backs == sum(map(len, hands)) and len(faces) == others


@pytest.mark.parametrize("name, players", [("lorum", 4), ("lovat", 3), ("lovat", 6)])
def test_the_mark_is_on_the_seat_whose_decision_is_pending(name: str, players: int) -> None:
    """Lovat marked the turn's active player, so a picture and `replay --legal` named different seats during
    the declarations (tried as a new user would); the active player is a fact line instead."""
    game = registry().game(name)
    for moves in range(0, 80, 3):
        state = played(game, players, moves)
        pending = state.to_move()
        table = game.table(state)
        assert table.to_move == (pending[0] if len(pending) == 1 else None), moves
        active = getattr(state.observation(0), "active", None)
        if name == "lovat" and active is not None:
            assert f"active: seat {active}" in table.info


@pytest.mark.parametrize("name, players", [("lorum", 4), ("lovat", 5)])
def test_a_seat_sees_only_its_own_hand(name: str, players: int) -> None:
    game = registry().game(name)
    state = played(game, players, 12)
    hands, others = engine_cards(game, state)
    table = game.table(state, viewer=1)
    assert table.seats[1].hand == hands[1]
    assert all(seat.hand is None and seat.hidden == len(hands[index])
               for index, seat in enumerate(table.seats) if index != 1)
    faces, backs = shapes(game.draw(state, viewer=1))
    hidden = {card for index, hand in enumerate(hands) if index != 1 for card in hand}
    assert not hidden & set(faces), "another seat's card is drawn face up"
    assert backs == sum(len(hand) for index, hand in enumerate(hands) if index != 1)
    assert len(faces) == len(hands[1]) + others


def test_lovat_cards_show_level_colour_and_strength_and_lorum_cards_their_points() -> None:
    games = registry()
    lovat = games.game("lovat")
    face = lovat.card_faces()["L2-05"]
    assert face.corner == "L2-05" and face.label == "L2" and len(face.bars) == 5
    state = next(state for moves in range(3, 60) for state in (played(lovat, 3, moves),)
                 if state.observation(0).colour is not None and state.observation(0).hand)
    colour = state.observation(0).colour
    table = lovat.table(state)
    assert table.accent == COLOURS.index(colour) and f"colour: {colour}" in table.info
    card = state.observation(0).hand[0]
    strength = STRENGTH[card][COLOURS.index(colour)]
    root = ElementTree.fromstring(lovat.draw(state))
    drawn = next(node for node in root.iter(f"{SVG}g") if node.get("data-card") == card)
    assert str(strength) in [text.text for text in drawn.iter(f"{SVG}text")]  # the strength that counts now
    lorum = games.game("lorum").card_faces()
    assert lorum["Og"].mark == "8 pts" and lorum["Ah"].mark == "1 pt" and lorum["Aa"].mark == ""
    assert lorum["Og"].corner == "green" and lorum["Og"].label == "O"


def test_every_text_is_escaped_and_a_colour_is_only_a_colour() -> None:
    hostile = '<script>alert(1)</script>&"'
    face = CardFace(label="</text><script>x</script>", corner="&amp;", ink="url(javascript:alert(1))",
                    mark="<b>", bars=(("red;fill:url(x)", 3), ("#00ff00", 5)))
    table = Table(seats=(SeatView(("c<1>",), 0, (("chips<", 3),), (), hostile), SeatView(None, 2)),
                  names=(hostile, "b"), middle=((0, "c<1>"),), info=(hostile,), to_move=0, accent=0)
    picture = svg(table, {"c<1>": face}, title=hostile)
    root = ElementTree.fromstring(picture)  # well formed: nothing broke out of its element
    assert not [node for node in root.iter() if node.tag.endswith(("script", "b"))]
    texts = [node.text or "" for node in root.iter(f"{SVG}text")]
    assert hostile in texts and "\u25b6 seat 0 (<script>alert(1)</scrip\u2026" in texts and "&amp;" in texts
    fills = {node.get("fill") for node in root.iter()} | {node.get("stroke") for node in root.iter()}
    assert not any(value and ("url" in value or ";" in value) for value in fills)
    assert "#777777" in fills  # the bad colours are drawn grey


def test_the_example_game_draws_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE_GAME))
    game = importlib.import_module("arena_example_game.game").GAME

    state = game.new_state(5, game.info.resolve_options(3, {}))
    rng = random.Random(5)
    for _ in range(5):
        seat = state.to_move()[0]
        state.apply(seat, game.info.random_action(state.observation(seat), rng))
    hands = [state.observation(seat).hand for seat in range(3)]
    trick = state.observation(0).trick
    faces, backs = shapes(game.draw(state, names=["a", "b", "c"]))
    assert backs == 0 and sorted(faces) == sorted([*(card for hand in hands for card in hand),
                                                   *(card for _, card in trick)])
    faces, backs = shapes(game.draw(state, viewer=2))
    assert backs == len(hands[0]) + len(hands[1]) and not set(hands[0]) & set(faces)


def test_replay_draws_the_table_as_svg_or_to_a_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    assert main(["play", "lorum", "--seed", "4", "--record", str(record)]) == 0
    capsys.readouterr()
    assert main(["replay", str(record), "--svg", "--at", "13", "--seat", "2"]) == 0
    out = capsys.readouterr().out
    _faces, backs = shapes(out)
    assert backs > 0 and "Slovak Lorum, move 13 (as seat 2 sees it)" in out
    picture = tmp_path / "table.svg"
    assert main(["replay", str(record), "--picture", str(picture)]) == 0
    out = capsys.readouterr().out
    assert "recorded actions legal" in out and shapes(picture.read_text())[1] == 0
    assert out.splitlines()[-1] == f"picture saved to {picture}"
    assert main(["replay", str(record), "--picture", str(tmp_path / "table.png")]) == 2  # it would hold SVG
    assert capsys.readouterr().err == f"arena: error: --picture {tmp_path / 'table.png'}: the picture is SVG: name the file .svg\n"
    assert not (tmp_path / "table.png").exists()
    for argv, message in ((["--svg", "--at", "999"], "--at 999: the match has moves 0 to "),
                          (["--svg", "--seat", "4"], "--seat 4: seats are 0 to 3"),
                          (["--at", "3"], "--at chooses the point shown: add --svg, --picture FILE or --legal"),
                          (["--seat", "1"], "--seat chooses what the picture shows: add --svg or --picture FILE"),
                          (["--svg", "--log"], "--svg prints a picture instead of the result")):
        assert main(["replay", str(record), *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err


def test_the_conformance_kit_catches_a_drawing_that_shows_another_seats_hand() -> None:
    from arena.conformance.games import check_game

    lorum = registry().game("lorum")

    class Leaky(type(lorum)):  # type: ignore[misc]
        def table(self, state: Any, viewer: int | None = None, hands: bool = True, names: Any = ()) -> Any:
            return super().table(state, None, viewer is not None or hands, names)  # every hand to any seat

    with pytest.raises(AssertionError, match=r"seat 0's view of the table shows the hands of seats \[1, 2, 3\]"):
        check_game(Leaky(), seeds=(0,))


def test_a_lorum_spectator_s_table_read_from_the_state_is_the_one_the_observations_draw() -> None:
    """The site draws every step of every match as a spectator with every hand shown, read straight from the
    state (reusing what the last table drew where nothing changed); at every step of whole games (bids,
    tricks, deals settled, the end) it is what the observations say, also when three games are drawn in turn,
    each offered the others' last seats and facts."""
    from arena.games.lorum.drawing import _observed_table

    game = registry().game("lorum")
    names = ("a", "b", "c", "d")
    games = [(game.new_state(seed, game.info.resolve_options(4, {"deals": 4})), random.Random(seed), [0])
             for seed in (1, 2, 3)]
    while games:
        for state, rng, steps in list(games):
            assert game.table(state, None, True, names) == _observed_table(state, None, True, names)
            if state.is_over():
                assert steps[0] > 30 and state.past_deals  # deals settled along the way
                games.remove((state, rng, steps))
                continue
            seat = state.to_move()[0]
            state.apply(seat, game.info.random_action(state.observation(seat), rng))
            steps[0] += 1


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_lovat_hands_a_spectator_s_table_reads_from_the_state_are_the_observations_hands(players: int) -> None:
    """At every step of whole games (the secret keeps included), the cards read from the state for a table
    that shows every hand are each seat's observation's hand."""
    from arena.games.lovat.drawing import held_cards

    game = registry().game("lovat")
    state = played(game, players, 0, seed=players)
    rng = random.Random(players)
    steps = 0
    while not state.is_over():
        for seat in range(players):
            assert held_cards(state, seat) == state.observation(seat).hand
        seat = state.to_move()[0]
        state.apply(seat, game.info.random_action(state.observation(seat), rng))
        steps += 1
    assert steps > 20
