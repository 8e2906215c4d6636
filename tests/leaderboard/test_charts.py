"""The charts are SVG written directly: well-formed, names escaped, what they show is what was rated."""

import math
import xml.etree.ElementTree as ElementTree

from arena.leaderboard import build_leaderboard, head_to_head
from arena.leaderboard.charts import head_to_head_svg, ratings_svg
from arena.leaderboard.svg import diverging, ticks
from arena.ratings.simulate import simulate_outcomes
from arena.site.history import history_svg

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = ["<script>alert(1)</script>", 'quote"s & co', "plain"]


def _outcomes():
    return simulate_outcomes(dict(zip(HOSTILE, [0.3, 0.0, -0.3])), blocks=12, players=2, seed=5, score_step=1.0)


def _texts(tree):
    return ["".join(element.itertext()) for element in tree.iter(f"{SVG}text")]


def test_ratings_chart_parses_and_names_every_agent_in_rank_order():
    board = build_leaderboard(_outcomes(), "elo")
    text = ratings_svg(board, "r-svg")
    assert "<script" not in text
    tree = ElementTree.fromstring(text)
    assert tree.get("id") == "r-svg" and tree.get("role") == "img"
    assert [t for t in _texts(tree) if t in HOSTILE] == list(board.agents)
    dots = [float(c.get("cx")) for c in tree.iter(f"{SVG}circle") if c.find(f"{SVG}title") is not None]
    ratings = [row.rating for row in board.rows]
    # Higher rating, further right: the dots keep the ratings' order.
    assert sorted(range(len(dots)), key=dots.__getitem__) == sorted(range(len(ratings)), key=ratings.__getitem__)


def test_heatmap_colours_each_pair_by_its_share_and_greys_pairs_that_never_met():
    table = head_to_head(_outcomes())
    tree = ElementTree.fromstring(head_to_head_svg(table, "h-svg"))
    cells = [rect for rect in tree.iter(f"{SVG}rect") if rect.get("class") == "cell"]
    assert len(cells) == len(table.agents) ** 2
    for index, cell in enumerate(cells):
        value = table.share[index // len(table.agents)][index % len(table.agents)]
        assert cell.get("fill") == ("#d9d9d9" if value is None else diverging(value))
    assert [g.get("id") for g in tree.iter(f"{SVG}linearGradient")] == ["h-svg-scale"]  # ids prefixed
    assert diverging(0.0) == "#67001f" and diverging(0.5) == "#f7f7f7" and diverging(1.0) == "#053061"


def test_history_chart_draws_a_line_per_shown_agent_and_empty_charts_say_so():
    history = {"method": "elo", "matches": [10, 20, 30],
               "agents": {"a<b": [[1.0, 0.5, 1.5], [1.2, 0.9, 1.6], None], "c": [None, [0.0, -math.inf, 0.4],
                                                                                 [0.1, -0.2, 0.3]]}}
    tree = ElementTree.fromstring(history_svg(history))
    # best at the last checkpoint first: "a<b" has no rating there
    assert [line.find(f"{SVG}title").text for line in tree.iter(f"{SVG}polyline")] == ["c", "a<b"]
    empty = ElementTree.fromstring(history_svg({"matches": [], "agents": {}}))
    assert "no matches yet" in _texts(empty)
    assert "no matches yet" in _texts(ElementTree.fromstring(ratings_svg(build_leaderboard([], "elo"))))


def test_ticks_are_round_and_span_the_range():
    assert ticks(0.0, 1.0) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert ticks(-37.0, 1412.0)[0] >= -37.0 and ticks(-37.0, 1412.0)[-1] <= 1412.0
    assert len(ticks(-37.0, 1412.0)) >= 3
