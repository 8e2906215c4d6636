"""The match viewer draws the table, in headless Chromium: a Lorum and a Lovat step, checked against the engine.

The checks cannot pass on a blank or broken picture: the number of card shapes drawn must equal the cards the
engine's state holds at that step (every hand, face up or down, the cards won face up, the cards in the
middle), the face-up cards must be exactly the hands the engine holds, and a screenshot of the drawing must
show a picture (many distinct pixel rows) that changes from one step to the next.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.leaderboard.publish import publish
from arena.plugins import load_registry
from arena.records import action_from_json, game_for_record
from arena.site.chunks import match_page, scenes
from arena.tournament.config import config_from_dict
from arena.tournament.runner import run_tournament
from arena.tournament.store import Store, store_path
from tests.conftest import DevToolsPage

LOVAT = {"name": "draw-lovat", "game": "lovat", "seed": 3, "blocks": 1, "ratings": ["score"], "isolation": "trusted",
         "game_options": {"players": 3}, "agents": [{"name": "greedy"}, {"name": "random"},
                                                   {"name": "random-2", "plugin": "random"}]}


@pytest.fixture(scope="module")
def lovat_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-match Lovat tournament's site."""
    boards = tmp_path_factory.mktemp("lovat-boards")
    registry = load_registry(plugins_dir=None).registry
    config = config_from_dict(LOVAT, {name: game.info for name, game in registry.games.items()},
                              {name: set(spec.games) for name, spec in registry.agents.items()})
    run_tournament(config, leaderboards=boards, plugins_dir=None, workers=1)
    publish(config, boards, plugins_dir=None)
    return boards / "draw-lovat"


def engine_state(site: Path, step: int) -> tuple[Any, Any]:
    """The game and the engine's state after the first ``step`` actions of the site's first match."""
    with Store.open_readonly(store_path(site.parent, site.name)) as store:
        record = store.record(next(iter(store.rows())).id)
    game = game_for_record(record, load_registry(plugins_dir=None).registry.games)
    state = game.new_state(record["seed"], game.info.resolve_options(None, record["options"]),
                           script=record["chance"])
    for entry in record["actions"][:step]:
        state.apply(entry["seat"], action_from_json(entry["action"]))
    return game, state


def held_cards(game: Any, state: Any) -> tuple[list[list[str]], int]:
    """Every seat's hand and the count of the other cards on the table (middle and won), from the engine."""
    players = len(state.observation(0).hand_sizes)
    hands = [list(state.observation(seat).hand) for seat in range(players)]
    public = state.observation(0)
    if game.info.name == "lorum":
        middle = len(public.trick) or (len(public.tricks[-1][0]) if public.tricks and public.phase != "bid" else 0)
        return hands, middle
    return hands, len(public.plays) + sum(len(cards) for cards in public.point_cards)


def drawn(page: DevToolsPage) -> dict[str, Any]:
    return page.evaluate("""(() => {
        const root = document.querySelector('#table-drawing svg');
        const seats = [...root.querySelectorAll('g.seat')];
        return {backs: root.querySelectorAll('.card-back').length, faces: root.querySelectorAll('g.card').length,
                hands: seats.map(seat => [...seat.querySelectorAll(':scope > g.card')]
                                          .filter(card => card.querySelector('rect').getAttribute('width') === '30')
                                          .map(card => card.dataset.card)),
                text: root.textContent};
    })()""")


def drawing_png(page: DevToolsPage) -> bytes:
    box = page.evaluate("(() => { const r = document.querySelector('#table-drawing svg').getBoundingClientRect();"
                        " return [r.x, r.y, r.width, r.height]; })()")
    clip = {"x": box[0], "y": box[1], "width": box[2], "height": box[3], "scale": 1}
    return base64.b64decode(page.call("Page.captureScreenshot", {"format": "png", "clip": clip})["data"])


@pytest.mark.parametrize("which, step", [("lorum", 6), ("lovat", 6)])
def test_a_step_is_drawn_with_every_card_the_state_holds(which: str, step: int, site: Path, lovat_site: Path,
                                                         devtools: DevToolsPage,
                                                         png_rows: Callable[[bytes], Any]) -> None:
    folder = site if which == "lorum" else lovat_site
    page = devtools
    page.open((folder / "match.html").as_uri() + "#0")
    page.wait_for("!!document.querySelector('#table-drawing svg')")
    for _ in range(step):
        page.press("ArrowRight")
    page.wait_for(f"document.getElementById('step-status').textContent.startsWith('step {step} of')")
    game, state = engine_state(folder, step)
    hands, others = held_cards(game, state)
    picture = drawn(page)
    # Hands hidden (the checkbox off): one back per card in a hand, faces for the middle and the cards won.
    assert picture["backs"] == sum(len(hand) for hand in hands) > 0
    assert picture["faces"] == others
    before = drawing_png(page)
    width, height, distinct = png_rows(before)
    assert width > 600 and height > 400 and distinct > 150, "the table drawing looks blank"

    page.evaluate("document.getElementById('show-hands').click()")
    picture = drawn(page)
    assert picture["backs"] == 0
    assert picture["faces"] == sum(len(hand) for hand in hands) + others  # every card shape, now face up
    assert [sorted(hand) for hand in picture["hands"]] == [sorted(hand) for hand in hands]  # the engine's hands
    assert drawing_png(page) != before
    if which == "lovat":
        colour = state.observation(0).colour
        assert colour is None or f"colour: {colour}" in picture["text"]
    else:
        assert "pot " in picture["text"] and "chips " in picture["text"]

    middle_before = {card for _, card in game.table(state).middle}
    page.press("ArrowRight")  # the next step is drawn from its own scene
    game, state = engine_state(folder, step + 1)
    hands, others = held_cards(game, state)
    assert drawn(page)["faces"] == sum(len(hand) for hand in hands) + others
    arrived = {card for _, card in game.table(state).middle} - middle_before  # played by this step: animated
    assert arrived  # both chosen steps play a card
    assert sorted(page.evaluate("[...document.querySelectorAll('#table-drawing .arrived')]"
                                ".map(card => card.dataset.card)")) == sorted(arrived)
    assert page.errors == []


def test_names_and_card_faces_are_text_and_colours_in_the_drawing(tmp_path: Path, devtools: DevToolsPage) -> None:
    """A seat's name is the agent's entry name, a plugin game's card faces its author's: markup in them stays
    text, and a colour that is not "#rrggbb" is drawn grey, in the browser as in ``arena.games.drawing``."""
    game = load_registry(plugins_dir=None).registry.game("lorum")
    record = arena.play_match("lorum", ["greedy", "random", "random", "random"], seed=2).record
    record["seats"][1]["agent"] = "<img src=x onerror=t()>"
    data = match_page(game, record)
    scene = scenes(data["steps"])[3]
    assert scene is not None
    faces = {card: face.to_json() for card, face in game.card_faces().items()}
    hand = scene["s"][0][0]
    faces[hand[0]] = {"t": "<b>big</b>", "s": "<i>", "c": "red;stroke:url(javascript:x)", "m": "<u>m</u>",
                      "b": [["url(x)", 3], ["#00ff00", 5]]}
    script = tmp_path / "draw.js"
    script.write_text((Path(__file__).resolve().parents[2] / "arena" / "site" / "assets" / "site.js").read_text())
    page_html = tmp_path / "draw.html"
    page_html.write_text("""<!DOCTYPE html><html><body data-page="none"><div id="out"></div>
<script type="application/json" id="site-settings">{}</script>
<script src="draw.js"></script>
<script src="data.js"></script></body></html>""")
    (tmp_path / "data.js").write_text(f"window.SCENE = {json.dumps(scene)}; window.FACES = {json.dumps(faces)};"
                                      f" window.NAMES = {json.dumps(data['names'])};")
    devtools.open(page_html.as_uri())
    devtools.wait_for("typeof window.arenaDrawTable === 'function'")
    devtools.evaluate("document.getElementById('out').appendChild("
                      "window.arenaDrawTable(window.SCENE, window.NAMES, window.FACES, () => true))")
    assert devtools.evaluate("document.querySelectorAll('#out img, #out b, #out i, #out u').length") == 0
    text = devtools.evaluate("document.getElementById('out').textContent")
    assert "seat 1 (<img src=x onerror=t()>)" in text and "<b>big</b>" in text and "<u>m</u>" in text
    colours = devtools.evaluate(f"[...document.querySelectorAll('#out g.card[data-card=\"{hand[0]}\"] *')]"
                                ".flatMap(node => [node.getAttribute('fill'), node.getAttribute('stroke')])")
    assert "#777777" in colours and not any(value and ("url" in value or ";" in value) for value in colours)


@pytest.mark.parametrize("which", ["lorum", "lovat"])
def test_every_step_is_drawn_as_the_engine_draws_it(which: str, site: Path, lovat_site: Path,
                                                     devtools: DevToolsPage) -> None:
    """The page stores each step's scene as what changed (a card that left a hand, plays added to the middle, a
    seat's changed fields); the viewer rebuilds every scene from them.  At every step of a match, every hand
    shown, each seat holds the engine's cards in the engine's order, with its cards won, counts and note, and the
    middle and the facts are the engine's."""
    folder = site if which == "lorum" else lovat_site
    page = devtools
    page.open((folder / "match.html").as_uri() + "#0")
    page.wait_for("!!document.querySelector('#table-drawing svg')")
    page.evaluate("document.getElementById('show-hands').click()")
    game, state = engine_state(folder, 0)
    with Store.open_readonly(store_path(folder.parent, folder.name)) as store:
        record = store.record(next(iter(store.rows())).id)
    names = [seat["agent"] for seat in record["seats"]]
    for step in range(len(record["actions"]) + 1):
        if step:
            entry = record["actions"][step - 1]
            state.apply(entry["seat"], action_from_json(entry["action"]))
            page.press("ArrowRight")
            page.wait_for(f"document.getElementById('step-status').textContent.startsWith('step {step} of')")
        table = game.table(state, None, True, names)
        picture = page.evaluate("""(() => {
            const root = document.querySelector('#table-drawing svg');
            const cards = (nodes, wide) => [...nodes].filter(card => wide === null ||
                (card.querySelector('rect').getAttribute('width') === '30') === wide).map(card => card.dataset.card);
            return {hands: [...root.querySelectorAll('g.seat')].map(seat => cards(seat.querySelectorAll(':scope > g.card'), true)),
                    won: [...root.querySelectorAll('g.seat')].map(seat => cards(seat.querySelectorAll(':scope > g.card'), false)),
                    middle: cards(root.querySelectorAll(':scope > g.card'), null), text: root.textContent};
        })()""")
        assert picture["hands"] == [list(seat.hand or ()) for seat in table.seats], f"step {step}"
        assert picture["won"] == [list(seat.won) for seat in table.seats], f"step {step}"
        assert picture["middle"] == [card for _, card in table.middle], f"step {step}"
        for line in table.info:
            assert line in picture["text"], f"step {step}"
        for seat in table.seats:
            facts = " · ".join([*(f"{name} {value}" for name, value in seat.counts), *([seat.note] if seat.note else [])])
            assert (facts if len(facts) <= 40 else facts[:39] + "…") in picture["text"], f"step {step}"  # clipped at 40
    assert page.errors == []
