"""Agent options under their documented name: ``from arena.options import AgentOptions, OptionSpec``.

docs/writing-agents.md and the example plugins import them from here; they live in ``arena.seating.options``,
with the check every way of seating an agent runs first.
"""

from arena.seating.options import AgentOptions, OptionSpec

__all__ = ["AgentOptions", "OptionSpec"]
