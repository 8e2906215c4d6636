"""The plugin module named by the ``arena`` entry point: it registers the agent, nothing else."""

from __future__ import annotations

from collections.abc import Callable

from arena import hookimpl
from arena.agent import AgentSpec
from arena.options import AgentOptions, OptionSpec
from arena_example_agent import __version__
from arena_example_agent.agents import PLAY_CONFIDENCE, make_agent


@hookimpl
def arena_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Register ``example`` for both games (one factory picks the class per game)."""
    register(
        AgentSpec(
            name="example",
            games=("lovat", "lorum"),
            factory=make_agent,
            description="Counts unseen cards: plays only when likely to win (Lovat), ducks under the trick (Lorum).",
            version=__version__,
            # No trusted flag: a third-party agent runs in its own sandbox, decided by where it comes from.
            # Declared options are checked before any match; an option not declared here is refused.
            options=AgentOptions((
                OptionSpec("play_confidence", "float", default=PLAY_CONFIDENCE, minimum=0.0, maximum=1.0,
                           games=("lovat",), help="declare play when the chance to win the turn is at least this"),
            )),
        )
    )
