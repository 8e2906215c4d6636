"""check-agent covers the game: every phase and case is reached, and one never reached fails the check."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.conformance.agents import check_agent
from arena.conformance.coverage import Coverage, CoveragePlan
from arena.games.lorum.coverage import LORUM_CASES
from arena.games.lorum.game import LorumGame
from arena.games.lovat.coverage import LOVAT_CASES
from arena.plugins import Registry, load_registry
from arena.referee import SeatPlan, play_match

PLUGIN = '''
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Random(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})

    def act(self, observation):
        return self.inner.act(observation)


class BuggyInRegularGames(Random):
    """Bids big or small whenever it can, and raises on any card play of a regular (all-pass) game."""

    def act(self, observation):
        if observation.contract is None:
            return "big" if "big" in observation.legal else observation.legal[0]
        if observation.contract == "regular":
            raise RuntimeError("regular games are not written yet")
        return super().act(observation)


class BuggyOnVoidTurns(Random):
    def act(self, observation):
        if observation.phase == "void":
            raise RuntimeError("void turns are not written yet")
        return super().act(observation)


class NeverBids(Random):
    """Passes whenever it bids and plays randomly: fine, though it never leads a big game on its own."""

    def act(self, observation):
        if getattr(observation, "contract", "") is None:
            return "pass"
        return super().act(observation)


@hookimpl
def arena_register_agents(register):
    for name, factory, games in (("cov-regular-bug", BuggyInRegularGames, ("lorum",)),
                                 ("cov-void-bug", BuggyOnVoidTurns, ("lovat",)),
                                 ("cov-never-bids", NeverBids, ("lorum",))):
        register(AgentSpec(name=name, games=games, factory=factory, description=name, version="1.0"))
'''


@pytest.fixture(scope="module")
def plugins_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("coverage") / "plugins"
    folder.mkdir()
    (folder / "coverage_agents.py").write_text(PLUGIN)
    return folder


@pytest.fixture(scope="module")
def registry(plugins_dir: Path) -> Registry:
    loaded = load_registry(plugins_dir=plugins_dir, entry_points=False).registry
    assert loaded.errors == []
    return loaded


def check(registry: Registry, plugins_dir: Path, agent: str, game: str):
    return check_agent(agent, game, registry=registry, plugins_dir=plugins_dir, entry_points=False,
                       isolation="trusted", determinism=False)


@pytest.mark.parametrize("game, cases", [("lorum", LORUM_CASES), ("lovat", LOVAT_CASES)])
def test_random_passes_with_every_case_reached(registry: Registry, plugins_dir: Path, game: str,
                                               cases: tuple[str, ...]) -> None:
    report = check(registry, plugins_dir, "random", game)
    assert report.passed, report.summary()
    table = report.to_json()["coverage"]
    counts = ["4"] if game == "lorum" else ["3", "4", "5", "6"]
    assert sorted(table) == counts
    assert all(list(table[count]) == list(cases) and all(table[count].values()) for count in counts), table
    assert "MISSING" not in report.summary() and cases[-1] in report.summary()


def test_an_agent_that_raises_only_in_regular_lorum_games_fails(registry: Registry, plugins_dir: Path) -> None:
    # It bids big or small at every chance, so left to its own bidding it would never play a regular game.
    report = check(registry, plugins_dir, "cov-regular-bug", "lorum")
    assert not report.passed
    assert any("regular games are not written yet" in problem for problem in report.problems), report.problems
    assert report.coverage.decisions.get((4, "regular: lead"), 0) + \
        report.coverage.decisions.get((4, "regular: follow"), 0) >= 1


def test_an_agent_that_raises_only_on_lovat_void_turns_fails(registry: Registry, plugins_dir: Path) -> None:
    report = check(registry, plugins_dir, "cov-void-bug", "lovat")
    assert not report.passed
    assert any("void turns are not written yet" in problem for problem in report.problems), report.problems


def test_against_opponents_that_never_empty_their_hands_the_void_turn_is_still_checked(registry: Registry,
                                                                                     plugins_dir: Path) -> None:
    # greedy keeps cards for its turns, so whole games between greedy seats reach no void turn at all: the
    # plan's scripted opening makes another seat void, and the bug on the agent's discard is found.
    report = check_agent("cov-void-bug", "lovat", registry=registry, plugins_dir=plugins_dir, entry_points=False,
                         isolation="trusted", determinism=False, opponents=["greedy"])
    assert any("void turns are not written yet" in problem for problem in report.problems), report.problems
    report = check_agent("random", "lovat", registry=registry, plugins_dir=plugins_dir, entry_points=False,
                         isolation="trusted", determinism=False, opponents=["greedy"])
    assert report.passed, report.summary()
    assert report.coverage is not None
    assert all(report.coverage.decisions[(players, "void turn")] >= 1 for players in (3, 4, 5, 6))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_the_void_turn_opening_replays_to_seat_0s_discard_whatever_the_seed(registry: Registry, players: int) -> None:
    game = registry.game("lovat")
    plan = game.coverage_plan()
    assert plan is not None
    scenario = next(s for s in plan.scenarios(game, players) if s.targets == ("void turn",))
    for seed in (0, 12345):  # the match's seed: the script holds every chance outcome of the opening
        state: Any = game.new_state(seed, game.info.resolve_options(players, {}), script=scenario.script)
        for seat, action in scenario.prefix:
            state.apply(seat, action)
        assert state.observation(0).phase == "void" and state.to_move() == (0,) and state.active == 1
        assert state.observation(1).hand == ()  # the voider starts its turn with no cards (L-12)


def test_an_agent_that_never_bids_is_still_driven_through_big_and_small_games(registry: Registry,
                                                                               plugins_dir: Path) -> None:
    report = check(registry, plugins_dir, "cov-never-bids", "lorum")
    assert report.passed, report.summary()
    assert report.coverage.decisions[(4, "big: lead")] >= 1  # its bid was forced by the scenario


def test_a_case_never_reached_is_a_failure(registry: Registry, plugins_dir: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    plan = LorumGame().coverage_plan()
    cut = CoveragePlan(plan.cases, plan.classify,
                       lambda game, players: tuple(s for s in plan.scenarios(game, players)
                                                   if "big: lead" not in s.targets))
    monkeypatch.setattr(LorumGame, "coverage_plan", lambda self: cut)
    report = check(registry, plugins_dir, "cov-never-bids", "lorum")
    assert not report.passed
    assert report.problems == [problem for problem in report.problems if "never reached: big: lead" in problem]
    assert "MISSING" in report.summary()
    # Its reproduce command is the check that was run: the same opponents (a case may be unreachable only
    # against them), not the default random ones.
    report = check_agent("cov-never-bids", "lorum", registry=registry, plugins_dir=plugins_dir, entry_points=False,
                         isolation="trusted", determinism=False, opponents=["greedy", "random"], seed=5)
    assert [finding.reproduce for finding in report.findings] == [
        f"arena check-agent cov-never-bids --game lorum --players 4 --seed 5 --opponents greedy,random "
        f"--plugins-dir {plugins_dir}"]


def test_the_command_line_takes_opponents_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["check-agent", "search", "--game", "lorum", "--isolation", "trusted", "--matches", "1",
                   "--option", "iterations=8", "--opponents", "greedy,random", "--plugins-dir", "no-such-folder"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.rstrip().endswith("PASS") and "small: follow, must beat" in out
    status = main(["check-agent", "search", "--game", "lorum", "--option", "iteration=8"])
    assert status == 2
    assert capsys.readouterr().err == (
        "arena: error: agent 'search' has no option 'iteration' in lorum; did you mean 'iterations'? "
        "(its options: iterations, ms)\n"
    )


@pytest.mark.parametrize(("phase", "counted"), [("move", 1), ("startup", 0)])
def test_a_faulted_decision_is_counted_unless_the_seat_never_started(phase: str, counted: int) -> None:
    """A seat faulted at a decision was asked it; one that never started (a program that could not be built,
    an agent whose constructor raised) was asked nothing, though its substitute played its first move."""
    registry = load_registry(plugins_dir=None, entry_points=False).registry
    game = registry.game("lorum")
    seats = [SeatPlan(name="random", spec=registry.agent("random"), seed=seat, isolation="trusted")
             for seat in range(4)]
    record = dict(play_match(game, game.info.resolve_options(4, {}), 5, seats, substitute=registry.agent("random"),
                             isolation="trusted").record)
    first = next(move for move, entry in enumerate(record["actions"]) if entry["seat"] == 0)
    record["faults"] = [{"seat": 0, "move": first, "kind": "crash", "phase": phase, "message": "m"}]
    plan = game.coverage_plan()
    assert plan is not None
    coverage = Coverage(plan, (4,))
    coverage.add_match(game, record, 0, 0)
    assert sum(coverage.decisions.values()) == counted
