"""What ``arena check-agent`` reports: the findings, the per-match checks, and the report's text.

``arena.conformance`` runs the checks and fills a ``CheckReport``; this module only holds and renders it
(80 columns, each problem with its fix and a command that reproduces it).
"""

from __future__ import annotations

import re
import statistics
import textwrap
from dataclasses import dataclass, field
from typing import Any

from arena.conformance.coverage import Coverage
from arena.referee import Limits
from arena.referee.faults import CRASH, EXCEPTION, ILLEGAL, MEMORY, TIMEOUT
from arena.referee.seats import TRUSTED

FIXES = {
    EXCEPTION: "act() raised an exception: fix the error at the file and line named (an agent must never raise)",
    ILLEGAL: "return exactly one of observation.legal (a string), or, where observation.legal is empty because a "
             "rule describes the choice (a Lovat keep), a tuple of card ids that the rule allows "
             "(Game.action_error(observation, action) must return None); never a list of options, None or "
             "another type",
    TIMEOUT: "decide faster: each decision gets {move} s, and the decisions of one match may overrun that by "
             "{bank} s in all (the bank); load models when the plugin module is imported, not per move",
    CRASH: "the agent's process died: do not call os._exit(), sys.exit() or os.kill(), and avoid crashing native "
           "code",
    MEMORY: "use less memory: an isolated agent may allocate {memory} MB beyond the preloaded arena",
}
"""What to do about each fault kind (a fault in a decision; see ``STARTUP_FIXES`` for building the agent)."""

STARTUP_FIXES = {
    EXCEPTION: "building the agent raised an exception (its factory or __init__, before any act()): fix the "
               "error at the file and line named; an agent's constructor must never raise",
    TIMEOUT: "build the agent faster: building it gets {startup} s; load models and build tables when the plugin "
             "module is imported (once, shared by every match), not in __init__ (every match)",
    CRASH: "the agent's process died while the agent was being built: do not call os._exit(), sys.exit() or "
           "os.kill(), and avoid crashing native code",
    MEMORY: "use less memory while building the agent: an isolated agent may allocate {memory} MB beyond the "
            "preloaded arena",
}
"""What to do about a fault while the agent is built (a fault of phase ``startup``)."""

PROGRAM_FIXES = {
    ILLEGAL: "answer {{\"type\": \"action\", \"id\": ID, \"action\": ...}} on one line, echoing the request's id, "
             "with one of its \"legal\" actions or, where \"legal\" is empty (a Lovat keep), a sorted list of card "
             "ids the rule allows; write nothing else on standard output: debugging output goes to standard error "
             "(docs/protocol.md, \"Faults\")",
    TIMEOUT: "answer faster: each decision gets {move} s from the request line to the answer line, and the "
             "decisions of one match may overrun that by {bank} s in all; flush standard output after each line",
    CRASH: "the program exited, or could not be built or started: the message above ends with its standard "
           "error's last line (or the build's first error, and where the build's whole log is); run it by hand "
           "with a greeting on standard input (docs/protocol.md)",
    MEMORY: "use less memory: the program and everything it starts may use {memory} MB",
}
"""What to do about each fault kind of an agent program (docs/protocol.md), in any phase."""

PROGRAM_STARTUP_TIMEOUT_FIX = (
    "answer the greeting with {{\"type\": \"ready\"}} on one line within {startup} s of starting, and flush "
    "standard output after it (a pipe is not a terminal: most languages, and tools such as awk, hold their output "
    "back until told to flush)")
"""What to do about a program that was not ready in time (answering faster is not the point there)."""

DENIED_FIX = (
    "the sandbox lets a program start only its runtime (the command's first word) and the files of its own "
    "folder or build output: a script cannot run other tools of the system (sed, awk, jq, ...); do that work in "
    "the script's own language, or ship the tool in the program's folder (docs/protocol.md, section 6)")
"""What to do about a program whose standard error says a command was refused (``Permission denied``)."""

NONDETERMINISM_FIX = (
    "make the agent deterministic for a given seed: draw all randomness from random.Random(self.seed) created in "
    "__init__ (not the global random module, os.urandom or time), and do not let the order of a set or the id() "
    "of an object decide anything"
)

WIDTH = 80
"""Columns ``CheckReport.summary`` and ``failure_message`` wrap to."""

OUTPUT_LINES = 20
"""How many lines of an agent's output a problem quotes (the traceback of an exception, a print before it)."""

OUTPUT_WIDTH = WIDTH - len("      | ")
"""Longest output line a problem quotes (the report fits ``WIDTH`` columns)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem in parts, so that a report can print each distinct fix once."""

    title: str  # what and where, e.g. "timeout at move 11 (lorum, 4 players, seat 0, seed 7)"
    detail: str  # what happened
    fix: str  # what to do about it
    reproduce: str  # a command that shows the problem again
    note: str = ""  # a remark on the command (e.g. why it is not `arena play`)
    output: str = ""  # the end of what the agent printed in that match (arena.referee.seat_log), if anything

    def line(self) -> str:
        """The problem as one line (``CheckReport.problems``)."""
        note = f" ({self.note})" if self.note else ""
        return f"{self.title}: {self.detail}. To fix: {self.fix}. Reproduce: {self.reproduce}{note}"


@dataclass(slots=True)
class MatchCheck:
    """One match of the check."""

    players: int  # seats at the table
    seed: int  # the match seed (the game's deal and every agent seed derive from it)
    seat: int  # the checked agent's seat
    decisions: int  # decisions asked of the agent itself (the one that faulted included)
    faults: list[dict[str, Any]]  # the agent's faults (at most one: after it a substitute plays)
    command: str  # an `arena play` command that replays the same match (under arena play's own limits)
    reproduce: str = ""  # a command that reproduces the match's fault: `command`, or an `arena check-agent`
    # command where `arena play` cannot (a timeout or memory fault under other limits); empty if no fault
    output: str = ""  # the end of what the agent printed, where it faulted (``output_tail``); else empty
    scenario: str = ""  # the coverage scenario the match was played for (a scripted deal); empty for the --matches

    def to_json(self) -> dict[str, Any]:
        return {"players": self.players, "seed": self.seed, "seat": self.seat, "decisions": self.decisions,
                "faults": self.faults, "command": self.command, "reproduce": self.reproduce, "output": self.output,
                "scenario": self.scenario}


@dataclass(slots=True)
class CheckReport:
    """What ``check_agent`` found.  ``passed`` is true when ``problems`` is empty."""

    agent: str  # the agent's registered name
    version: str  # the agent's version
    game: str  # the game's short name
    isolation: str  # "isolated", "sandboxed" or "trusted"
    limits: Limits  # the limits the agent played under
    matches: list[MatchCheck] = field(default_factory=list)  # every match played, in order
    move_seconds: list[float] = field(default_factory=list)  # seconds of every decision the agent made
    peak_memory_mb: float | None = None  # largest peak memory of its seat (a process seat only)
    # How the peak was measured: "added" (the seat's cgroup: only what its processes allocated or changed of the
    # arena preloaded before it started, which they share), "resident" (the process's peak resident size,
    # the shared preloaded arena included, where no cgroup measures it) or "program" (an agent program, which
    # shares nothing with the arena); None without a figure.
    peak_memory_kind: str | None = None
    deterministic: bool | None = None  # same seed twice gave the same actions; None if not checked
    problems: list[str] = field(default_factory=list)  # one line each: what went wrong and what to fix
    findings: list[Finding] = field(default_factory=list)  # the same problems in parts (summary groups fixes)
    seed: int = 0  # the seed the matches derive from
    coverage: Coverage | None = None  # decisions per case and player count; None for a game without a plan

    def add(self, finding: Finding) -> None:
        """Record a problem."""
        self.findings.append(finding)
        self.problems.append(finding.line())

    @property
    def passed(self) -> bool:
        """Whether the agent conforms."""
        return not self.problems

    @property
    def decisions(self) -> int:
        """Decisions asked of the agent itself over every match, a faulted one included (as each match counts)."""
        return sum(match.decisions for match in self.matches)

    @property
    def faults(self) -> list[dict[str, Any]]:
        """Every fault, each with the match's players, seed, command and reproduce command added."""
        return [dict(fault, players=match.players, seed=match.seed, command=match.command,
                     reproduce=match.reproduce)
                for match in self.matches for fault in match.faults]

    @property
    def move_seconds_median(self) -> float | None:
        """Median seconds per decision."""
        return statistics.median(self.move_seconds) if self.move_seconds else None

    @property
    def move_seconds_max(self) -> float | None:
        """Longest decision, in seconds."""
        return max(self.move_seconds) if self.move_seconds else None

    def counts(self) -> dict[str, int]:
        """Faults per kind (every kind present, zeros included)."""
        counts = {kind: 0 for kind in FIXES}
        for fault in self.faults:
            counts[fault["kind"]] = counts.get(fault["kind"], 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (``arena check-agent --json``)."""
        return {
            "agent": self.agent, "version": self.version, "game": self.game, "seed": self.seed, "passed": self.passed,
            "isolation": self.isolation, "limits": self.limits.to_json(), "decisions": self.decisions,
            "faults": self.counts(), "move_seconds": {"median": self.move_seconds_median, "max": self.move_seconds_max},
            "peak_memory_mb": self.peak_memory_mb, "peak_memory_kind": self.peak_memory_kind,
            "deterministic": self.deterministic,
            "problems": list(self.problems), "matches": [match.to_json() for match in self.matches],
            "coverage": None if self.coverage is None else self.coverage.to_json(),
        }

    def summary(self) -> str:
        """A readable report: what was played, the measurements, then PASS or FAIL with every problem."""
        lines = wrap_text(f"{self.agent} {self.version} on {self.game} ({self.isolation}, {self.limits.describe()}"
                      + (f", {self.limits.memory_mb} MB" if self.isolation != TRUSTED and self.limits.memory_mb
                         else "")
                      + f", seed {self.seed})", "", "  ")
        for players in sorted({match.players for match in self.matches}):
            played = [match for match in self.matches if match.players == players]
            faults = sum(len(match.faults) for match in played)
            decisions = sum(match.decisions for match in played)
            scripted = sum(1 for match in played if match.scenario)
            # The coverage plan's matches come on top of those asked for: say so, or --matches 1 reads as wrong.
            why = (f" ({len(played) - scripted} asked for, {scripted} more to reach the cases below)" if scripted
                   else "")
            lines.append(f"  {players} players: {count_of(len(played), 'match', 'matches')}{why}, "
                         f"{count_of(decisions, 'decision')}, {count_of(faults, 'fault')}")
        counts = ", ".join(f"{kind} {count}" for kind, count in self.counts().items())
        lines.append(f"  faults: {counts}")
        if self.move_seconds:
            lines.append(f"  time per move: median {format_ms(self.move_seconds_median)}, "
                         f"max {format_ms(self.move_seconds_max)}")
        if self.peak_memory_mb is not None:
            how = {"added": "the agent's own, beyond the preloaded arena it shares",
                   "resident": "resident, the preloaded arena included", "program": "the program's own"}
            kind = how.get(self.peak_memory_kind or "", "peak")
            lines.append(f"  peak memory: {self.peak_memory_mb:.0f} MB ({kind})")
        determinism = {True: "yes", False: "NO", None: "not checked"}[self.deterministic]
        lines.append(f"  deterministic for a fixed seed: {determinism}")
        if self.coverage is not None:
            lines.append("  coverage: the agent's own decisions per case"
                         + ("" if self.passed else " (stopped at the first problem)"))
            lines += ["  " + line for line in self.coverage.table()]
        if self.passed:
            lines.append("PASS")
        else:
            lines.append(f"FAIL: {count_of(len(self.problems), 'problem')}")
            lines.extend(self._problem_lines())
        return "\n".join(lines)

    def failure_message(self) -> str:
        """The assertion message of ``assert_agent_conforms``: every problem, and each distinct fix once."""
        return f"agent {self.agent!r} does not conform on {self.game}:\n" + "\n".join(self._problem_lines())

    def _problem_lines(self) -> list[str]:
        """Every problem (what, where, how to reproduce), wrapped; after the problems sharing a fix, that fix."""
        groups: dict[str, list[Finding]] = {}
        for finding in self.findings:
            groups.setdefault(finding.fix, []).append(finding)
        lines: list[str] = []
        for fix, findings in groups.items():
            for finding in findings:
                lines += wrap_text(f"{finding.title}:", "  - ", "    ")
                lines += wrap_text(f"{finding.detail}.", "    ", "    ")
                lines += command_lines("Reproduce: ", finding.reproduce, "    ")
                if finding.note:
                    lines += wrap_text(f"({finding.note})", "    ", "    ")
                if finding.output:
                    lines.append("    Its output ended:")
                    lines += ["      | " + line for line in finding.output.splitlines()]
            lead = "To fix:" if len(findings) == 1 else f"To fix the {len(findings)} problems above:"
            lines += wrap_text(f"{lead} {fix}.", "  ", "    ")
        shown = {finding.line() for finding in self.findings}
        for problem in self.problems:
            if problem not in shown:  # added to problems directly
                lines += wrap_text(problem, "  - ", "    ")
        return lines


TRACEBACK_FILE = re.compile(r'File "[^"]*/([^"/]+)"')
"""A traceback line's file, whose folder a line too long to quote whole can do without."""


def output_tail(text: str, lines: int = OUTPUT_LINES, width: int = OUTPUT_WIDTH) -> str:
    """The last ``lines`` non-empty lines of a seat's kept output, each cut at ``width`` characters (a traceback's
    line first loses its file's folder, so that the file and line still show)."""
    kept = [_fit(line, width) for line in text.splitlines() if line.strip()]
    return "\n".join(kept[-lines:])


def _fit(line: str, width: int) -> str:
    if len(line) > width:
        line = TRACEBACK_FILE.sub(r'File "\1"', line)
    return line if len(line) <= width else line[: width - 3] + "..."


def format_ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


def count_of(number: int, singular: str, plural: str | None = None) -> str:
    """``1 match``, ``2 matches``."""
    return f"{number} {singular if number == 1 else plural or singular + 's'}"


def wrap_text(text: str, first: str, rest: str) -> list[str]:
    """``text`` wrapped to ``WIDTH`` columns; words (paths, commands) and quantities (``10 s``) are never broken."""
    kept = re.sub(r"(\d) (s|ms|MB)\b", "\\1\N{NO-BREAK SPACE}\\2", text)
    lines = textwrap.wrap(kept, WIDTH, initial_indent=first, subsequent_indent=rest, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace("\N{NO-BREAK SPACE}", " ") for line in lines]


def command_lines(label: str, command: str, indent: str) -> list[str]:
    """A shell command after ``label``, broken before its options with `` \\`` so it still pastes."""
    chunks = command.split(" --")
    chunks = chunks[:1] + [f"--{chunk}" for chunk in chunks[1:]]
    lines = [f"{indent}{label}{chunks[0]}"]
    for chunk in chunks[1:]:
        if len(lines[-1]) + 1 + len(chunk) + 2 <= WIDTH:
            lines[-1] += f" {chunk}"
        else:
            lines[-1] += " \\"
            lines.append(f"{indent}  {chunk}")
    return lines

