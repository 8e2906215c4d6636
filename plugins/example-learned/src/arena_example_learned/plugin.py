"""The plugin module named by the ``arena`` entry point: it registers the agent, nothing else."""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.agent import AgentSpec
from arena.options import AgentOptions, OptionSpec
from arena_example_learned import __version__
from arena_example_learned.agent import DEFAULT_WEIGHTS, LearnedLorumAgent

OPTIONS = AgentOptions((
    OptionSpec("weights", "str", default=DEFAULT_WEIGHTS, help="the weights file: a path inside this package's folder"),
))
"""Declared so that arena refuses a misspelt option before any match."""


@hookimpl
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register ``learned`` for Slovak Lorum, with its ``weights`` option."""
    register(
        AgentSpec(
            name="learned",
            games=("lorum",),
            factory=LearnedLorumAgent,
            description="A numpy MLP trained by imitating greedy (examples/train_lorum.py); option weights=FILE.",
            version=__version__,
            options=OPTIONS,
        )
    )
