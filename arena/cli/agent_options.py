"""``arena agents NAME``: one agent and the options it declares (kept apart from the listing commands)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from arena.agent import AgentSpec
from arena.cli.common import CliError
from arena.options import OptionSpec
from arena.plugin_system.loading import Registry


def agent_named(loaded: Registry, name: str) -> AgentSpec:
    """The installed agent ``name``, or a ``CliError`` with a did-you-mean."""
    try:
        return loaded.agent(name)
    except KeyError as error:
        raise CliError(error.args[0]) from None


def print_agent_options(row: dict[str, Any]) -> None:
    """An agent's facts, then one table row per option; options in configs go under ``[agents.options]``.

    What a plugin wrote (description, help) is shown as text, never read as console markup.
    """
    console = Console()
    console.print(f"[bold]{escape(row['name'])}[/] {escape(row['version'])} (plugin {escape(row['plugin'])}, "
                  f"{escape(row['source'])}): plays {escape(', '.join(row['games']))}")
    console.print(escape(row["description"] or "(no description)"))
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
        table.add_row(*(escape(cell) for cell in (option.name, option.type, option.expected(), default,
                                                  ", ".join(option.games) or "all", option.help)))
    console.print(table)
