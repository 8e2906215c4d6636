"""``arena agents NAME``: one agent and the options it declares (kept apart from the listing commands)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from arena.agent import AgentSpec
from arena.cli.common import CliError, literal
from arena.cli.console import output_console
from arena.plugin_system.loading import Registry
from arena.seating.options import OptionSpec


def agent_named(loaded: Registry, name: str) -> AgentSpec:
    """The installed agent ``name``, or a ``CliError`` with a did-you-mean."""
    try:
        return loaded.agent(name)
    except KeyError as error:
        raise CliError(error.args[0]) from None


def print_agent_options(row: dict[str, Any]) -> None:
    """An agent's facts, then one table row per option; options in configs go under ``[agents.options]``.

    What a plugin wrote (description, help) is shown as text, never read as console markup, its control
    characters made visible (``\\x1b``) instead of acting on the terminal.
    """
    console = output_console()
    name = literal(row["name"])
    name.stylize("bold")
    console.print(Text.assemble(name, " ", literal(row["version"]), " (plugin ",
                                literal(row["plugin"]), ", ", literal(row["source"]), "): plays ",
                                literal(", ".join(row["games"]))))
    console.print(literal(row["description"] or "(no description)"))
    if not row["options"]:
        console.print("options: none (any option given to it is refused)")
        return
    table = Table(title="Options", box=box.SIMPLE_HEAD, caption_justify="left",
                  caption="set in a config's \\[agents.options] table, "
                          "or --option on 'arena play' and 'arena check-agent'")
    for column in ("option", "type", "allowed", "default", "games", "what it does"):
        table.add_column(column, overflow="fold")
    for data in row["options"]:
        option = OptionSpec.from_json(data)
        default = "unset" if option.default is None else str(option.default)
        table.add_row(*(literal(cell) for cell in (option.name, option.type, option.expected(), default,
                                                   ", ".join(option.games) or "all", option.help)))
    console.print(table)
