"""The agent conformance kit: does an agent play by the rules, in time, in memory, reproducibly?

``arena check-agent NAME --game G`` runs these checks from the command line;
plugin authors call the same functions from their own test suites::

    from arena.conformance.agents import assert_agent_conforms, check_agent

    def test_my_agent_conforms():
        assert_agent_conforms("my-agent", "lovat")          # fails with what to fix

    def test_my_agent_is_fast():
        report = check_agent("my-agent", "lorum", matches=4)
        assert report.move_seconds_max < 0.1

The agent plays every supported player count against the first-party
``random`` agent (or the ``opponents`` chosen), in a different seat each match,
then the scenarios of the game's coverage plan (``arena.conformance.coverage``: scripted
deals and forced bidding) until it has decided in every phase and case of the
game at every player count; a case never reached fails the check.  All of it
runs under the tournament referee (isolated by default, with the default ``Limits``).  The report lists
illegal or malformed actions, exceptions, timeouts, crashes and memory
exhaustion (each with the match's seed and a command that reproduces it),
time per move (median and maximum), peak memory (isolated only), and whether
the same seed twice gives the same actions (the second time in a fresh
isolated host, so set-iteration and hash-order bugs show up too).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.conformance.coverage import ATTEMPTS, Coverage, Scenario, scenarios_for
from arena.conformance.report import (
    DENIED_FIX,
    FIXES,
    NONDETERMINISM_FIX,
    PROGRAM_FIXES,
    PROGRAM_STARTUP_TIMEOUT_FIX,
    STARTUP_FIXES,
    CheckReport,
    Finding,
    MatchCheck,
    count_of,
    output_tail,
)
from arena.games.base import Game
from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR, FILE, PROGRAM, Registry, load_registry, origin
from arena.records import action_from_json
from arena.records.log import fault_when
from arena.records.seeding import derive_seed
from arena.referee import AgentHost, Limits, MatchResult, RefereeError, SeatPlan, play_match
from arena.referee.confinement import sandbox_level
from arena.referee.faults import CRASH, MEMORY, STARTUP, TIMEOUT, fault_phase
from arena.referee.program_seat import is_program
from arena.referee.seats import AUTO, ISOLATED, SANDBOXED, TRUSTED, resolve_mode
from arena.seating.substitute import SUBSTITUTE

CHECK_MODES = ("isolated", "sandboxed", "trusted")
"""Where the checked agent may run: its own process (rlimits), the full sandbox, or in-process."""

OPPONENT = SUBSTITUTE
"""The agent every other seat is given: the random agent, which plays every game."""

DEFAULT_MATCHES = 2
"""Matches per player count."""

def check_agent(
    agent: str | AgentSpec,
    game: str | Game,
    *,
    matches: int = DEFAULT_MATCHES,
    seed: int = 0,
    player_counts: Sequence[int] | None = None,
    limits: Limits | None = None,
    isolation: str | None = None,
    registry: Registry | None = None,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    entry_points: bool = True,
    determinism: bool = True,
    options: Mapping[str, Any] | None = None,
    opponents: Sequence[str] | None = None,
    on_match: Callable[[int], None] | None = None,
) -> CheckReport:
    """Play ``agent`` at every supported player count, then through every case of the game; report what went wrong.

    ``agent`` and ``game`` are names (or a registered ``AgentSpec`` and a
    ``Game``).  ``options`` are the agent's own (checked against what it
    declares); ``opponents`` names the agents in the other seats, in turn
    (default: ``random``).  ``registry`` defaults to the plugins loaded from ``plugins_dir``
    and entry points.  ``isolation`` is ``"isolated"`` (its own process;
    measures memory), ``"sandboxed"`` (the full sandbox) or ``"trusted"``;
    by default, where tournaments run a third-party agent on this machine
    (``sandboxed`` if ``arena doctor`` reports a sandbox, else ``isolated``).  Raises
    ``ValueError`` (one line) for an unknown agent or game, or an agent that
    does not play the game, options it does not accept, or an opponent that cannot play.
    ``on_match(played)`` is called after each match (a command's progress display).
    """
    if isinstance(matches, bool) or not isinstance(matches, int) or matches < 1:
        raise ValueError(f"matches must be a whole number >= 1, not {matches!r}")
    if isolation is None:
        isolation = ISOLATED if sandbox_level() == "none" else SANDBOXED
    if isolation not in CHECK_MODES:
        raise ValueError(f"isolation must be {' or '.join(map(repr, CHECK_MODES))}, not {isolation!r}")
    if registry is None:
        registry = load_registry(plugins_dir=plugins_dir, entry_points=entry_points).registry
    spec, game = _resolve(registry, agent, game)
    options = dict(options or {})
    spec.options.check(options, spec.name, game.info.name)  # OptionError is a ValueError: one line
    rivals = [_resolve(registry, name, game)[0] for name in (opponents or [OPPONENT])]
    counts = tuple(player_counts) if player_counts is not None else game.info.player_counts
    if not counts:
        raise ValueError("player_counts is empty: give at least one player count (or None for all)")
    for players in counts:
        if players not in game.info.player_counts:
            raise ValueError(f"{game.info.title} is not played by {players} players "
                             f"(allowed: {', '.join(map(str, game.info.player_counts))})")
    limits = limits or Limits()
    report = CheckReport(agent=spec.name, version=spec.version, game=game.info.name, isolation=isolation,
                         limits=limits, seed=seed)
    plan = game.coverage_plan()
    report.coverage = None if plan is None else Coverage(plan, counts)
    opponent = registry.agent(OPPONENT)  # the substitute after a fault, as in tournaments
    hosts: list[AgentHost] = []

    def host() -> AgentHost | None:
        if isolation == TRUSTED:
            return None
        if not hosts:
            hosts.append(AgentHost())
        return hosts[0]

    try:
        firsts: list[tuple[MatchCheck, MatchResult, list[SeatPlan], dict[str, Any]]] = []
        def play(players: int, game_options: dict[str, Any], match_seed: int, seat: int, index: int,
                 scenario: Scenario | None = None) -> tuple[MatchCheck, MatchResult, list[SeatPlan]]:
            seats = _seats(spec, rivals, players, seat, match_seed, isolation, options)
            result = play_match(game, game_options, match_seed, seats, substitute=opponent, limits=limits,
                                isolation="trusted", host=host(), script=scenario.script if scenario else (),
                                prefix=scenario.prefix if scenario else ())
            check = _match_check(spec, game, players, match_seed, seat, result, seats, options)
            if scenario is not None:  # `arena play` cannot force a deal's bidding: the check itself reproduces it
                check.command = _check_command(spec, game, players, seed, options, opponents)
                check.scenario = scenario.label
            report.matches.append(check)
            if on_match is not None:
                on_match(len(report.matches))
            for fault in check.faults:
                if seat < len(result.logs) and result.logs[seat]:  # why it failed, in its own words
                    check.output = output_tail(result.logs[seat])
                finding = _fault_finding(spec, game, check, fault, limits, isolation, seed, index,
                                         result.move_seconds[seat])
                check.reproduce = finding.reproduce
                report.add(finding)
            report.move_seconds.extend(result.move_seconds[seat])
            memory = result.peak_memory_mb[seat]
            if memory is not None and memory >= (report.peak_memory_mb or 0.0):
                report.peak_memory_mb = memory
                # A full sandbox puts the seat in cgroups, whose peak counts only what the seat added to the
                # zygote it was forked from; a program is started afresh, so all of its memory is its own.
                report.peak_memory_kind = ("program" if is_program(spec) else
                                           "added" if result.sandbox[seat] == "full" else "resident")
            if report.coverage is not None:
                report.coverage.add_match(game, result.record, seat, len(scenario.prefix) if scenario else 0)
            return check, result, seats

        for players in counts:
            game_options = game.info.resolve_options(players, {})
            for index in range(matches):
                match_seed = derive_seed(seed, "check-agent", game.info.name, players, index)
                check, result, seats = play(players, game_options, match_seed, index % players, index)
                if index == 0:
                    firsts.append((check, result, seats, game_options))
        if report.coverage is not None and report.passed:  # a failing agent's problems come first, unflooded
            # The reproduce command keeps the options and opponents: without them it checks something else.
            _cover(report, report.coverage, game, counts, seed, play,
                   lambda players: _check_command(spec, game, players, seed, options, opponents))
        if determinism:
            _check_determinism(report, game, opponent, firsts, limits, isolation)
    finally:
        for made in hosts:
            made.close()
    return report


def assert_agent_conforms(agent: str | AgentSpec, game: str | Game, **options: Any) -> CheckReport:
    """``check_agent`` and raise ``AssertionError`` listing every problem and what to fix; the report otherwise."""
    report = check_agent(agent, game, **options)
    if not report.passed:
        raise AssertionError(report.failure_message())
    return report


# -- internals -----------------------------------------------------------------------------------


def _cover(report: CheckReport, coverage: Coverage, game: Game, counts: Sequence[int], seed: int,
           play: Callable[..., Any], command: Callable[[int], str]) -> None:
    """Play the coverage plan's scenarios (the agent in seat 0) until every case is reached; report the rest
    (``command(players)`` is the check that plays them again).

    Cases left unreached after a fault are not reported as well: the fault is the problem to fix first.
    """
    for attempt in range(ATTEMPTS):
        todo = [(players, scenario) for players in counts for scenario in scenarios_for(coverage, game, players)]
        if not todo:
            break
        for players, scenario in todo:
            scenario_seed = derive_seed(seed, "check-agent coverage", game.info.name, players, attempt, scenario.label)
            game_options = game.info.resolve_options(players, dict(scenario.game_options))
            play(players, game_options, scenario_seed, 0, attempt, scenario)
    if not report.passed:
        return
    for players, case in coverage.missing():
        aimed = [s.label for s in coverage.plan.scenarios(game, players) if case in s.targets]
        report.add(Finding(
            title=f"never reached: {case} ({game.info.name}, {players} players)",
            detail=f"in {ATTEMPTS} tries of {', '.join(aimed) or 'every scenario'} the agent never decided in this "
                   "case, so the check cannot say it plays it",
            fix="a case the agent's own choices always avoid cannot be checked: make sure it can play every "
                "phase, or try other --opponents and --seed",
            reproduce=command(players),
        ))


def _check_command(spec: AgentSpec | str, game: Game, players: int, seed: int, options: Mapping[str, Any],
                   opponents: Sequence[str] | None) -> str:
    """An ``arena check-agent`` command that plays the same check at one player count."""
    name = spec if isinstance(spec, str) else spec.name
    parts = [f"arena check-agent {name} --game {game.info.name} --players {players} --seed {seed}"]
    parts += [f"--option {shlex.quote(f'{key}={json.dumps(value)}')}" for key, value in options.items()]
    if opponents:
        parts.append(f"--opponents {','.join(opponents)}")
    return " ".join(parts) + ("" if isinstance(spec, str) else _plugins_option(spec))


def _auto_mode(spec: AgentSpec) -> str:
    """The mode ``arena play`` gives ``spec`` (``auto``), or "unavailable" if it cannot seat it at all."""
    try:
        return resolve_mode(AUTO, spec)[0]
    except RefereeError:
        return "unavailable"


def _resolve(registry: Registry, agent: str | AgentSpec, game: str | Game) -> tuple[AgentSpec, Game]:
    if isinstance(game, str):
        try:
            game = registry.game(game)
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    if isinstance(agent, str):
        try:
            agent = registry.agent(agent)
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    if not agent.plays(game.info.name):
        raise ValueError(f"agent {agent.name!r} does not play {game.info.name} (it plays {', '.join(agent.games)})")
    return agent, game


def _seats(spec: AgentSpec, opponents: Sequence[AgentSpec], players: int, seat: int, match_seed: int,
           isolation: str, options: Mapping[str, Any]) -> list[SeatPlan]:
    """The checked agent at ``seat``, the opponents in turn elsewhere, seeded as ``arena play`` seeds them."""
    others = iter(opponents[k % len(opponents)] for k in range(players))
    plans = []
    for index in range(players):
        if index == seat:
            plans.append(SeatPlan(name=spec.name, spec=spec, options=dict(options),
                                  seed=derive_seed(match_seed, "agent", index), isolation=isolation))
        else:
            rival = next(others)
            plans.append(SeatPlan(name=rival.name, spec=rival, seed=derive_seed(match_seed, "agent", index)))
    return plans


def _match_check(spec: AgentSpec, game: Game, players: int, match_seed: int, seat: int,
                 result: MatchResult, seats: Sequence[SeatPlan], options: Mapping[str, Any]) -> MatchCheck:
    names = ",".join(plan.name for plan in seats)
    command = f"arena play {game.info.name} --players {players} --seed {match_seed} --agents {names}"
    command += "".join(f" --option {shlex.quote(f'{spec.name}.{key}={json.dumps(value)}')}"
                       for key, value in options.items())
    command += _plugins_option(spec)
    faults = [dict(fault) for fault in result.record["faults"] if fault["seat"] == seat]
    return MatchCheck(players=players, seed=match_seed, seat=seat, decisions=result.decisions[seat],
                      faults=faults, command=command)


def _plugins_option(spec: AgentSpec) -> str:
    """`` --plugins-dir DIR`` for an agent from a drop-in plugin outside ./plugins; else nothing."""
    source = origin(spec)
    if source is None or source.kind not in (FILE, PROGRAM):
        return ""
    folder = Path(source.target).parent
    if folder == DEFAULT_PLUGINS_DIR.resolve():
        return ""
    shown = os.path.relpath(folder)
    return f" --plugins-dir {shlex.quote(str(folder) if shown.startswith('..') else shown)}"


def _fault_finding(spec: AgentSpec, game: Game, check: MatchCheck, fault: dict[str, Any], limits: Limits,
                   isolation: str, seed: int, index: int, earlier: list[float]) -> Finding:
    """A fault as a problem: where, what (a timeout explained), the fix for its kind and phase, a command."""
    kind, message = fault["kind"], fault["message"]
    startup = fault_phase(fault) == STARTUP
    if is_program(spec):
        fix = _program_fix(kind, startup, f"{message}\n{check.output}")
    else:
        fix = (STARTUP_FIXES if startup and kind in STARTUP_FIXES else FIXES).get(kind, "")
    fix = fix.format(move=f"{limits.move_seconds:g}", bank=f"{limits.bank_seconds:g}",
                     startup=f"{limits.startup_seconds:g}", memory=limits.memory_mb)
    title = (f"{kind} {fault_when(fault)} ({game.info.name}, {check.players} players, seat {check.seat}, "
             f"seed {check.seed})")
    if kind == TIMEOUT and not startup:
        message = _explain_timeout(message, limits, earlier)
    reproduce, note = _reproduce(spec, game, check, kind, startup, limits, isolation, seed, index)
    return Finding(title=title, detail=message, fix=fix, reproduce=reproduce, note=note, output=check.output)


def _program_fix(kind: str, startup: bool, said: str) -> str:
    """The fix for an agent program's fault: a refused tool or a late greeting first, as the likelier cause.

    ``said`` is the fault's message and the end of what the program printed: a refused tool's line may sit
    above the one that ended it (a shell's ``echo: write error: Broken pipe`` after ``sed: Permission denied``).
    """
    if "Permission denied" in said:  # a script starting a tool it may not
        return DENIED_FIX
    if kind == TIMEOUT and startup:
        return PROGRAM_STARTUP_TIMEOUT_FIX
    return PROGRAM_FIXES.get(kind, "")


def _explain_timeout(message: str, limits: Limits, earlier: list[float]) -> str:
    """A decision's timeout message, saying where the bank went when earlier decisions had drawn on it.

    The referee's message gives what that decision had (the move time plus what was left of the bank);
    this adds which earlier decisions of the match had used the rest.
    """
    overrun = sum(max(0.0, seconds - limits.move_seconds) for seconds in earlier)
    if overrun <= 0:
        return message
    return (f"{message} (the agent's {count_of(len(earlier), 'earlier decision')} in this match had used "
            f"{min(overrun, limits.bank_seconds):.2f} s of the bank)")


def _reproduce(spec: AgentSpec, game: Game, check: MatchCheck, kind: str, startup: bool, limits: Limits,
               isolation: str, seed: int, index: int) -> tuple[str, str]:
    """A command that reproduces a fault, and a note on it.

    ``arena play`` replays the same match, but under the default ``Limits`` and with the agent isolated only
    if it is third-party: where that differs from the check in a way the fault depends on (time limits for
    a timeout, the memory limit for a memory fault, the isolation for those and a crash), the command is an
    ``arena check-agent`` run of just that player count, up to and including the match.
    """
    default = Limits()
    played = _auto_mode(spec)
    reasons = []
    if kind == TIMEOUT:
        if startup and limits.startup_seconds != default.startup_seconds:
            reasons.append(f"it always gives an agent {default.startup_seconds:g} s to start")
        if not startup and (limits.move_seconds, limits.bank_seconds) != (default.move_seconds,
                                                                          default.bank_seconds):
            reasons.append(f"it always allows {default.describe()}")
    if kind == MEMORY and isolation != TRUSTED and limits.memory_mb != default.memory_mb:
        reasons.append(f"it always allows {default.memory_mb} MB")
    if kind in (TIMEOUT, MEMORY, CRASH) and played != isolation:
        where = f"in its own process ({played})" if played != TRUSTED else "in-process (trusted)"
        reasons.append(f"it runs {spec.name} {where}")
    if not reasons:
        return check.command, ""
    parts = [f"arena check-agent {spec.name} --game {game.info.name} --players {check.players}",
             f"--matches {index + 1} --seed {seed}"]
    if isolation != (ISOLATED if sandbox_level() == "none" else SANDBOXED):  # check-agent's default
        parts.append(f"--isolation {isolation}")
    for name in ("move_seconds", "bank_seconds", "startup_seconds"):
        value = getattr(limits, name)
        if value != getattr(default, name):
            parts.append(f"--{name.replace('_', '-')} {value:g}")
    if limits.memory_mb is not None and limits.memory_mb != default.memory_mb:
        parts.append(f"--memory-mb {limits.memory_mb}")
    command = " ".join(parts) + _plugins_option(spec)
    played_matches = ("the same match" if index == 0
                      else f"the first {index + 1} matches of {check.players} players, the last being this one,")
    note = (f"`arena play` cannot reproduce this: {' and '.join(reasons)}; this command plays {played_matches} "
            "under the same limits")
    return command, note


def _check_determinism(report: CheckReport, game: Game, opponent: AgentSpec,
                       firsts: list[tuple[MatchCheck, MatchResult, list[SeatPlan], dict[str, Any]]],
                       limits: Limits, isolation: str) -> None:
    """Replay each player count's first match with the same seed (in a fresh host) and compare the actions."""
    comparable = [item for item in firsts if not item[0].faults]
    if not comparable:
        return
    second = AgentHost() if isolation != TRUSTED else None
    try:
        report.deterministic = True
        for check, first, seats, options in comparable:
            again = play_match(game, options, check.seed, seats, substitute=opponent, limits=limits,
                               isolation="trusted", host=second)
            if again.record["faults"]:
                continue  # a fault the second time is reported by the timing, not as nondeterminism
            difference = _first_difference(first.record["actions"], again.record["actions"])
            if difference is None:
                continue
            report.deterministic = False
            move, was, now = difference
            report.add(Finding(
                title=f"not deterministic ({game.info.name}, {check.players} players, seat {check.seat}, seed "
                      f"{check.seed})",
                detail=f"the same seed gave {was} at move {move} the first time and {now} the second",
                fix=NONDETERMINISM_FIX, reproduce=check.command, note="twice",
            ))
    finally:
        if second is not None:
            second.close()


def _first_difference(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> tuple[int, str, str] | None:
    for move, (a, b) in enumerate(zip(first, second, strict=False)):
        if a != b:
            return move, _show(a), _show(b)
    if len(first) != len(second):
        move = min(len(first), len(second))
        return move, f"{len(first)} actions", f"{len(second)} actions"
    return None


def _show(entry: dict[str, Any]) -> str:
    action = action_from_json(entry["action"])
    return f"{action!r} (seat {entry['seat']})"


