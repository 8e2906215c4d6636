"""Agent faults: the kinds the referee records, and how a returned action is checked.

A fault never stops a match: the seat is played from then on by the substitute
policy (a random legal action) and the fault is recorded on the match as
``{"seat", "kind", "phase", "move", "message"}``, ``move`` being the index in the
record's ``actions`` of the decision where the substitute's action stands.
An illegal action is reported, never "fixed".

``kind`` and ``phase`` are the referee's own: the kind by the way the seat
failed, the phase by the call that failed (building the agent, or a decision).
Nothing an agent writes decides either; its own text (an exception's class
name and message, what its process reports) appears in ``message`` only, after
the referee's words (``raised ...``), on one line.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Mapping
from typing import Any

from arena.games.base import Action, Game, Observation

EXCEPTION, ILLEGAL, TIMEOUT, CRASH, MEMORY = "exception", "illegal", "timeout", "crash", "memory"
FAULT_KINDS: tuple[str, ...] = (EXCEPTION, ILLEGAL, TIMEOUT, CRASH, MEMORY)
"""Every fault kind, as recorded: raised, illegal or malformed action, too slow, process died, out of memory."""

STARTUP, MOVE, END = "startup", "move", "end"
PHASES: tuple[str, ...] = (STARTUP, MOVE, END)
"""When a fault happened, as recorded: while the agent was being built, in one of its decisions, or after its
last decision (its ``on_result``, or an ``on_event`` it was told after that decision)."""

NOTIFICATIONS: tuple[str, ...] = ("on_event", "on_result")
"""The agent's calls that return nothing; one that raises is the seat's fault, named in its message."""

MESSAGE_LIMIT = 600
"""Longest fault message recorded (an agent's exception text is cut to 500 characters before the referee's words)."""

LEGACY_STARTUP_PREFIX = "start-up"
"""How the message of a start-up fault began in records made before faults carried their ``phase``."""


class Fault(Exception):
    """An agent misbehaved; ``kind`` is one of ``FAULT_KINDS`` and the message says how."""

    def __init__(self, kind: str, message: str, elapsed: float = 0.0) -> None:
        super().__init__(message)
        self.kind = kind
        self.elapsed = elapsed  # seconds the decision took, when known (counted in think time)


class RefereeError(Exception):
    """The match cannot be set up (a configuration problem, not an agent's fault); one-line message."""


def fault_phase(fault: Mapping[str, Any]) -> str:
    """A recorded fault's phase (``STARTUP``, ``MOVE`` or ``END``).

    The referee records ``phase`` with every fault.  A record made before it did has none; its phase is
    read the old way, from the message (a start-up fault's began ``start-up``).  That reading trusts text
    an agent could choose (an exception class named ``start-up``), so it is used for such old records only.
    """
    phase = fault.get("phase")
    if phase is None:
        return STARTUP if str(fault.get("message", "")).startswith(LEGACY_STARTUP_PREFIX) else MOVE
    return str(phase)


def describe_exception(error: BaseException) -> str:
    """``Type: message (at file.py:line in function)``, naming the innermost frame of the agent's code.

    Every part is the agent's (even the class name), so the referee's message puts its own words first.
    """
    try:
        text = " ".join(str(error).split())
    except BaseException:  # an agent's exception whose __str__ raises
        text = "(its message could not be read)"
    head = f"{type(error).__name__}: {text}" if text else type(error).__name__
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ is not None else []
    where = ""
    if frames:
        frame = frames[-1]
        where = f" (at {os.path.basename(frame.filename)[:100]}:{frame.lineno} in {frame.name[:100]})"
    return head[:500 - len(where)] + where  # a long message is cut, never where it was raised


def is_action_shaped(action: Any) -> bool:
    """Whether ``action`` is an action value at all: a string or a tuple of strings."""
    return isinstance(action, str) or (isinstance(action, tuple) and all(isinstance(item, str) for item in action))


def check_action(game: Game, observation: Observation, action: Any) -> Action:
    """``action`` as plain values (``exact_action``) if it is legal for ``observation``; else an ``illegal`` Fault.

    Works from the observation alone (``Game.action_error``), so the isolated
    referee, the conformance kit and the trusted referee share one check.
    """
    exact = exact_action(action)
    if exact is None:
        raise Fault(ILLEGAL, f"returned {type(action).__name__} {_short(action)}, not an action "
                             "(a string, or a tuple of strings such as a keep)")
    problem = game.action_error(observation, exact)
    if problem is not None:
        raise Fault(ILLEGAL, f"illegal action {_short(exact)}: {problem}")
    return exact


def exact_action(action: Any) -> Action | None:
    """``action`` made of plain values (a ``str``, or a ``tuple`` of ``str``; a list counts as a tuple), or None.

    Read through the built-in types' own methods: an in-process agent's str, tuple or list subclass runs none of
    its code here nor, since only copies go on, in the engine's checks, the state or other seats' observations.
    """
    kind = type(action)  # not isinstance, which reads an object's own __class__
    if issubclass(kind, str):
        return str.__str__(action)  # a subclass's characters as an exact str, whatever the subclass defines
    if issubclass(kind, tuple):
        items = list(tuple.__iter__(action))
    elif issubclass(kind, list):
        items = list(list.__iter__(action))
    else:
        return None
    if not all(issubclass(type(item), str) for item in items):
        return None
    return tuple(map(str.__str__, items))


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # an agent's object may have a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:77] + "..."
