"""The data the site is built from: results by seat, decision times, history checkpoints, list rows, match steps."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from arena.games.lorum.game import LorumGame
from arena.leaderboard.publish import Published
from arena.ratings.registry import fit
from arena.ratings.simulate import simulate_outcomes
from arena.records.log import move_times
from arena.site import chunks, parallel
from arena.site.chunks import unpacked, write_match_chunks
from arena.site.history import HISTORY_LIMIT, history_svg, line_style
from arena.site.stats import MoveTimes, checkpoints, history_method, list_row, rating_history, seat_results
from arena.tournament.store import MatchRow, Store, store_path
from tests.process_helpers import children, outliving


def row(idx: int, agents: tuple[str, ...], scores: tuple[float, ...], ranks: tuple[int, ...],
        faults: tuple[dict, ...] = ()) -> MatchRow:
    return MatchRow(idx=idx, id=f"t0000-b00-r{idx}", block_id="b0", table_idx=3, block=1, rotation=idx,
                    deal_seed=7, agents=agents, scores=scores, ranks=ranks, faults=faults,
                    think_seconds=(0.0,) * len(agents), wall_seconds=0.1)


def test_seat_results_average_each_agent_in_each_seat() -> None:
    rows = [row(0, ("a", "b", "c"), (10, 4, -2), (1, 2, 3)),
            row(1, ("b", "a", "c"), (6, 6, 0), (1, 1, 3)),
            row(2, ("a", "c", "b"), (2, 8, 0), (2, 1, 3))]
    seats = seat_results(rows)
    assert seats.agents == ("a", "b", "c") and seats.players == 3
    assert seats.games == ((2, 1, 0), (1, 1, 1), (0, 1, 2))
    assert seats.mean_score[0] == (6.0, 6.0, None)  # a: (10 + 2) / 2 in seat 0, 6 in seat 1, never seat 2
    assert seats.win_share[0] == (0.5, 0.5, None)  # the first place a shared with b in match 1: half a win
    assert seats.mean_score[2] == (None, 8.0, -1.0)
    assert seats.all_mean_score == (6.0, 6.0, -2 / 3)


def test_move_times_follow_each_seats_own_decisions_until_the_substitute() -> None:
    record = {"seats": [{"agent": "x"}, {"agent": "y"}], "move_seconds": [[0.5, 0.25], [0.125]],
              "actions": [{"seat": 0}, {"seat": 1}, {"seat": 0}, {"seat": 1}, {"seat": 0}]}
    assert move_times(record) == [0.5, 0.125, 0.25, None, None]  # y faulted at its second move
    assert move_times({"actions": [{"seat": 0}]}) == [None]  # an older record: no times
    times = MoveTimes()
    times.add(record)
    times.add({"seats": [{"agent": "x"}], "move_seconds": [[1.25]]})
    assert times.decisions == {"x": 3, "y": 1}
    assert times.mean("x") == pytest.approx(2.0 / 3) and times.longest == {"x": 1.25, "y": 0.125}
    assert times.mean("nobody") is None
    merged = MoveTimes.from_json(json.loads(json.dumps(times.to_json())))
    merged.merge(times)
    assert merged.decisions == {"x": 6, "y": 2} and merged.longest["x"] == 1.25


def test_checkpoints_are_bounded_and_end_with_every_match() -> None:
    assert checkpoints(100) == list(range(5, 101, 5))
    assert checkpoints(7) == [1, 2, 3, 4, 5, 6, 7]
    assert checkpoints(1001, 4) == [251, 501, 751, 1001]
    assert checkpoints(0) == []
    assert history_method(["trueskill", "score", "elo"]) == "score"
    assert history_method(["trueskill"]) == "elo"  # TrueSkill is too slow to fit twenty times


def test_rating_history_ends_at_the_full_fit() -> None:
    outcomes = simulate_outcomes({"a": 1.0, "b": 0.0, "c": -1.0, "d": 0.5}, blocks=10, players=3, seed=2)
    history = rating_history(outcomes, "elo", count=5)
    assert history["matches"] == checkpoints(len(outcomes), 5) and history["matches"][-1] == len(outcomes)
    final = {line.agent: [line.rating, line.lower, line.upper] for line in fit(outcomes, "elo").ratings}
    for agent, series in history["agents"].items():
        assert len(series) == 5
        assert series[-1] == pytest.approx(final[agent])
        assert series[-1][1] < series[-1][0] < series[-1][2]
    # Intervals narrow as matches accumulate.
    first_width = history["agents"]["a"][0][2] - history["agents"]["a"][0][1]
    assert first_width > final["a"][2] - final["a"][1]


def test_list_rows_name_table_block_rotation_agents_result_and_faults(tournament: tuple[Published, Path]) -> None:
    published, boards = tournament
    with Store.open_readonly(store_path(boards, published.name)) as store:
        rows = list(store.rows())
    assert len(rows) == 8  # one table, two blocks, four rotations
    agents = sorted({"greedy", "random", "raiser", "random-2"})
    first = list_row(rows[0], {name: i for i, name in enumerate(agents)})
    assert first[:5] == [0, "t0000-b00-r0", 0, 0, 0]
    assert [agents[i] for i in first[5]] == list(rows[0].agents)
    assert first[6] == list(rows[0].scores) and sorted(first[7]) == sorted(rows[0].ranks)
    for stored in rows:  # the raiser faults once a match, in its own seat, and the substitute plays on
        [[seat, kind, move, phase]] = list_row(stored, {name: i for i, name in enumerate(agents)})[8]
        assert stored.agents[seat] == "raiser" and (kind, phase) == ("exception", "move") and move >= 2
    seats = seat_results(rows)
    assert seats.games[agents.index("raiser")] == (2, 2, 2, 2)  # every rotation puts it in every seat


def test_a_match_page_steps_through_the_log_that_replay_prints(tournament: tuple[Published, Path],
                                                               site: Path) -> None:
    from arena.cli.replay import print_log

    published, boards = tournament
    pages = unpacked((site / "data" / "m00000.js").read_text())
    assert sorted(map(int, pages)) == list(range(8))
    page = pages["0"]
    with Store.open_readonly(store_path(boards, published.name)) as store:
        record = store.record(page["id"])
    assert page["record"] == record and page["result"] == record["result"]
    steps = page["steps"]
    assert len(steps) == len(record["actions"]) + 1 and steps[0][0] is None
    assert [step[0] for step in steps[1:]] == list(range(len(record["actions"])))
    [fault] = record["faults"]
    faulted = steps[fault["move"] + 1]
    assert faulted[5] == [f"Fault: seat {fault['seat']} (raiser) exception at move {fault['move']}: "
                          f"{fault['message']}; the substitute plays this seat from here."]
    timed = [step[4] for step in steps[1:]]
    assert timed == move_times(record)
    assert all(t is None for t, step in zip(timed, steps[1:]) if step[1] == fault["seat"] and step[0] >= fault["move"])
    assert all(t is not None and t >= 0 for t, step in zip(timed, steps[1:]) if step[1] != fault["seat"])
    # Every hand is shown after the deal: 8 cards each, and the seat that plays a card loses it.
    assert [len(re.findall(r"\b\w+[aghb]\b", hand)) for _, hand in steps[0][7]] == [8, 8, 8, 8]
    # The site's lines are the terminal's: header, faults, events and hands in the same order and words.
    out = io.StringIO()
    with redirect_stdout(out):
        print_log(LorumGame(), record, hands=True)
    terminal = out.getvalue().splitlines()
    shown = list(page["header"])
    for number, step in enumerate(steps):
        shown += step[5]
        shown += step[6]
        shown += [f"  seat {seat} ({page['names'][seat]}) hand: {hand}" for seat, hand in step[7]]
        assert number == 0 or step[3] is False  # Lorum has no secret decision
    assert shown == terminal


def test_a_second_build_replays_only_new_matches(tournament: tuple[Published, Path], tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    published, boards = tournament
    built: list[int] = []
    real = chunks._build_match_chunk

    def counting(path, number, members, store, game):
        built.append(len(members))
        return real(path, number, members, store, game)

    monkeypatch.setattr(chunks, "_build_match_chunk", counting)
    with Store.open_readonly(store_path(boards, published.name)) as store:
        rows = list(store.rows())
        first = write_match_chunks(tmp_path, rows[:5], store, LorumGame())
        again = write_match_chunks(tmp_path, rows[:5], store, LorumGame())
        assert built == [5] and first[0].decisions == again[0].decisions and first[1] == again[1]
        more = write_match_chunks(tmp_path, rows, store, LorumGame())
    assert built == [5, 8]  # the chunk gained matches: rebuilt
    assert more[1]["raiser"] == ["trusted/none"]
    assert sum(more[0].decisions.values()) > sum(first[0].decisions.values())


def test_the_front_page_shows_every_method_seats_times_and_config(site: Path) -> None:
    text = (site / "index.html").read_text()
    assert 'id="method-elo"' in text and 'id="method-score" data-method="score" hidden' in text
    assert text.count('class="method-button"') == 2
    assert re.search(r'<tr data-agent="raiser"><th scope="row">raiser</th>(<td class="num"[^>]*>[^<]+<small>\(2\)'
                     r"</small></td>){4}</tr>", text)
    found = re.search(r'<tr data-agent="raiser"[^>]*>.*?</tr>', text[text.index('id="leaderboard-elo"'):])
    assert found is not None
    raiser = found.group(0)
    assert "8 exc" in raiser and "trusted/none" in raiser and "µs" in raiser
    assert 'id="history-svg"' in text and 'id="head-to-head-svg"' in text and 'id="entries-table"' in text
    assert "Results stored" in text and "public: every deal follows from seed 5" in text
    for name in ("matches.html", "match.html", "site.js", "site.css", "history.json"):
        assert (site / name).is_file()


def test_a_lovat_match_page_states_the_secret_keeps() -> None:
    from arena.games.lovat.game import LovatGame
    from arena.plugins import load_registry
    from arena.referee import SeatPlan, play_match
    from arena.site.chunks import match_page

    registry = load_registry(plugins_dir=None, entry_points=False).registry
    seats = [SeatPlan(name=f"r{seat}", spec=registry.agent("random"), seed=seat) for seat in range(3)]
    record = play_match(LovatGame(), {"players": 3}, 11, seats, substitute=registry.agent("random")).record
    page = match_page(LovatGame(), record)
    keeps = page["steps"][1:4]
    assert [step[1] for step in keeps] == [0, 1, 2] and all(step[3] for step in keeps)  # secret: shown as such
    assert all(step[2].startswith("keep ") and not step[6] for step in keeps[:2])  # no public event until all kept
    assert keeps[2][6][0].startswith("Hands kept: seat 0 (r0) keeps ")
    assert match_page(None, record)["steps"] is None
    assert match_page(None, record)["error"] == "game 'lovat-v1' is not installed: no steps to show"


def test_a_chunk_holds_what_json_would_write_past_64_bits_and_named_tuples_too() -> None:
    """Chunks are written by orjson, which cannot write an integer past 64 bits (a record may hold one: its
    numbers are bounded by length, not size): that chunk is written by ``json`` instead, with the same data."""
    from arena.games.drawing import SeatView
    from arena.site.chunks import chunk_script, packed

    page = {"seed": 2**70, "view": SeatView(("Aa", "7b"), 0, (("chips", 3),), (), "dealer"), "steps": [(1, None)]}
    expected = {"seed": 2**70, "view": [["Aa", "7b"], 0, [["chips", 3]], [], "dealer"], "steps": [[1, None]]}
    assert unpacked(chunk_script("m", 0, packed({"0": page}))) == {"0": expected}
    small = {**page, "seed": 2**63}
    assert unpacked(chunk_script("m", 0, packed({"0": small}))) == {"0": {**expected, "seed": 2**63}}
    with pytest.raises(TypeError):
        packed({"0": {1, 2}})


@pytest.mark.parametrize("which", ["lorum", "lovat"])
def test_a_match_page_sends_each_scene_as_its_change_and_the_viewer_rebuilds_every_one(which: str) -> None:
    """The page's tables are the scene's changes step by step; undone (as site.js does) they are the scene the
    engine draws at every step, every hand shown, and after the first they hold only the seats that changed."""
    from arena.plugins import load_registry
    from arena.records import action_from_json
    from arena.referee import SeatPlan, play_match
    from arena.site.chunks import match_page, scenes

    registry = load_registry(plugins_dir=None, entry_points=False).registry
    game = registry.game(which)
    players = 4 if which == "lorum" else 3
    seats = [SeatPlan(name=f"r{seat}", spec=registry.agent("random"), seed=seat) for seat in range(players)]
    record = play_match(game, {"players": players}, 5, seats, substitute=registry.agent("random")).record
    page = json.loads(json.dumps(match_page(game, record)))  # as the browser reads it
    options = game.info.resolve_options(None, record.get("options", {}))
    state = game.new_state(record["seed"], options, script=record.get("chance", []))
    expected = []
    for entry in [None, *record["actions"]]:
        if entry is not None:
            state.apply(entry["seat"], action_from_json(entry["action"]))
        table = game.table(state, None, True, page["names"])
        assert table is not None
        expected.append(table.to_json())
    assert scenes(page["steps"]) == json.loads(json.dumps(expected))
    changes = [step[8] for step in page["steps"][1:]]
    assert "s" in page["steps"][0][8] and not any("s" in change for change in changes)
    # A card played is that card gone from its seat's hand and added to the middle, nothing of the seat's view
    # sent again; only a new deal (or a trick's winner, a bid) changes more.
    plays = [change for change in changes if "p" in change]
    assert plays
    assert all({seat for seat, _ in change["p"]} <= {seat for seat, _ in change["r"]} for change in plays)
    assert sum(len(change.get("d", ())) for change in changes) < len(changes)


def test_a_build_on_every_core_writes_what_one_process_writes(tournament: tuple[Published, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    published, boards = tournament
    monkeypatch.setattr(chunks, "MATCH_CHUNK", 2)  # the fixture's 8 matches in 4 chunks
    processes: list[int] = []
    real_workers = parallel.workers

    def counted(count: int) -> int:
        processes.append(real_workers(count))
        return processes[-1]

    monkeypatch.setattr(parallel, "workers", counted)
    progress: list[tuple[int, int]] = []
    with Store.open_readonly(store_path(boards, published.name)) as store:
        rows = list(store.rows())
        monkeypatch.setattr(parallel, "PARALLEL_CHUNKS", 1_000_000)
        alone = write_match_chunks(tmp_path / "alone", rows, store, LorumGame())
        monkeypatch.setattr(parallel, "PARALLEL_CHUNKS", 2)
        pooled = write_match_chunks(tmp_path / "pooled", rows, store, LorumGame(),
                                    lambda done, total: progress.append((done, total)))
    if len(os.sched_getaffinity(0)) > 1:  # this test runs one thread: the pool is used
        assert threading.active_count() == 1 and processes == [1, min(len(os.sched_getaffinity(0)), 4)]
    files = sorted(path.name for path in (tmp_path / "alone" / "data").iterdir())
    assert files == sorted(path.name for path in (tmp_path / "pooled" / "data").iterdir()) and len(files) == 5
    for name in files:  # four match chunks and the manifest, byte for byte
        assert (tmp_path / "alone" / "data" / name).read_bytes() == (tmp_path / "pooled" / "data" / name).read_bytes()
    assert alone[0].to_json() == pooled[0].to_json() and alone[1] == pooled[1]
    assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_the_title_is_the_name_and_the_game_and_the_deals_note_stays_in_the_config(site: Path) -> None:
    text = (site / "index.html").read_text()
    assert "<title>site-test (lorum)</title>" in text and "<h1><a href=\"index.html\">site-test (lorum)</a></h1>" in text
    assert "public: every deal follows from seed 5" in text  # said once, where the config is shown
    assert "(lorum; public deals" not in (site / "match.html").read_text()


def test_the_history_chart_tells_every_drawn_agent_apart() -> None:
    """Agents next to each other in the ranking get colours far apart; none of the drawn ones share colour and
    dashes (tab20's alternating dark and light shades of one hue made neighbours look alike)."""
    styles = [line_style(number) for number in range(HISTORY_LIMIT)]
    assert len(set(styles)) == HISTORY_LIMIT

    def rgb(colour: str) -> tuple[int, ...]:
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))

    solid = [colour for colour, dashes in styles if dashes == "-"]
    for first, second in itertools.combinations(solid, 2):
        distance = sum((a - b) ** 2 for a, b in zip(rgb(first), rgb(second), strict=True)) ** 0.5
        assert distance > 60, (first, second)
    history = {"method": "elo", "matches": [4, 8], "agents": {f"agent-{n}": [[1500.0 + n, 1400.0, 1600.0]] * 2
                                                             for n in range(3)}}
    svg = history_svg(history)
    for colour, _ in styles[:3]:
        assert colour in svg  # the chart draws with these colours


KILLED_BUILD = """
import sys, time
from pathlib import Path
from arena.site import parallel
from arena.tournament.store import Store

def slow(path, number, members, store, game):  # a chunk's replays, stretched
    time.sleep(30)
    return {}

with Store(Path(sys.argv[1])) as store:
    parallel.build_chunks([(Path(sys.argv[1]).parent / f"m{n}.js", n, []) for n in range(parallel.PARALLEL_CHUNKS)],
                          store, None, slow, lambda number, entry: None)
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a build uses a pool only with two cores or more")
def test_a_build_killed_outright_leaves_no_pool_process_behind(tmp_path: Path) -> None:
    # A parent killed with SIGKILL shuts no pool down: its workers waited for more chunks for good.
    parent = subprocess.Popen([sys.executable, "-c", KILLED_BUILD, str(tmp_path / "results.sqlite")])
    deadline = time.monotonic() + 60
    while len(workers := children(parent.pid)) < 2:
        assert time.monotonic() < deadline and parent.poll() is None, "the pool did not start"
        time.sleep(0.05)
    parent.kill()
    parent.wait(timeout=30)
    assert outliving(workers) == []
