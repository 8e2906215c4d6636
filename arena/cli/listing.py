"""``arena plugins``, ``arena agents`` and ``arena games``: what is installed."""

from __future__ import annotations

import argparse
from typing import Any, cast

from rich import box
from rich.table import Table
from rich.text import Text

from arena.agent import ANY_GAME
from arena.cli.agent_options import agent_named, print_agent_options
from arena.cli.common import add_command, add_plugins_dir, game_named, literal, print_json, registry
from arena.cli.console import output_console
from arena.plugin_system.loading import is_builtin


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register the listing commands."""
    plugins = add_command(
        subparsers,
        "plugins",
        help="list loaded plugins",
        description="List every loaded plugin: name, version, where it came from, and what it registered: games, "
                    "agents, rating methods, tournament formats and leaderboard views (arena's own in the row "
                    "'arena').",
        examples=("arena plugins", "arena plugins --json", "arena plugins --plugins-dir my_plugins"),
    )
    plugins.add_argument("--json", action="store_true", help="print JSON")
    add_plugins_dir(plugins)
    plugins.set_defaults(run=run_plugins)

    agents = add_command(
        subparsers,
        "agents",
        help="list installed agents",
        description="List installed agents: name, version, plugin, where it came from, games it plays, options; "
                    "with NAME, one agent and each of its options (type, allowed values, default, help).",
        examples=("arena agents", "arena agents --game lorum --json", "arena agents search"),
    )
    agents.add_argument("name", nargs="?", metavar="NAME", help="show this agent and its options")
    agents.add_argument("--game", help="only agents that play this game")
    agents.add_argument("--json", action="store_true", help="print JSON")
    add_plugins_dir(agents)
    agents.set_defaults(run=run_agents)

    games = add_command(
        subparsers,
        "games",
        help="list installed games",
        description="List installed games: name, versioned id, player counts and options.",
        examples=("arena games", "arena games --json"),
    )
    games.add_argument("--json", action="store_true", help="print JSON")
    add_plugins_dir(games)
    games.set_defaults(run=run_games)


def run_plugins(args: argparse.Namespace) -> int:
    """List plugins, and the rating methods, formats and views each added, arena's own in a row of their own."""
    from arena import __version__
    from arena.plugin_system.extensions import KINDS, origins  # brings the ratings (numpy, scipy): only here

    loaded = registry(args)
    found = origins(loaded)
    rows: list[dict[str, Any]] = [
        {"name": info.name, "version": info.version, "source": info.source,
         "games": list(info.games), "agents": list(info.agents),
         **{key: [name for name, plugin in found[key] if plugin == info.name] for key, _kind in KINDS}}
        for info in loaded.plugins
    ]
    # arena's own methods, formats and views come from no plugin: the row "arena", source builtin, says so.
    rows.append({"name": "arena", "version": __version__, "source": "builtin", "games": [], "agents": [],
                 **{key: [name for name, plugin in found[key] if plugin is None] for key, _kind in KINDS}})
    if args.json:
        print_json(rows)
        return 0
    table = Table(title="Plugins", box=box.SIMPLE_HEAD)
    for column in ("name", "version", "source", "games", "agents"):
        table.add_column(column, overflow="fold")
    for row in rows[:-1]:
        table.add_row(literal(row["name"]), literal(row["version"]), literal(row["source"]),
                      literal(", ".join(row["games"])), literal(", ".join(row["agents"])))
    added = Table(title="Rating methods, formats and views", box=box.SIMPLE_HEAD)
    for column in ("kind", "name", "from"):
        added.add_column(column, overflow="fold")
    for key, kind in KINDS:
        for name, plugin in found[key]:
            added.add_row(kind, literal(name), "built-in" if plugin is None else literal(plugin))
    console = output_console()
    console.print(table)
    console.print(added)
    return 0


def run_agents(args: argparse.Namespace) -> int:
    """List agents."""
    loaded = registry(args)
    if args.game is not None:
        game_named(loaded, args.game)
        specs = loaded.agents_for(args.game)
    else:
        specs = [loaded.agents[name] for name in sorted(loaded.agents)]
    if args.name is not None:
        specs = [spec for spec in specs if spec.name == args.name] or [agent_named(loaded, args.name)]
    sources = {info.name: info.source for info in loaded.plugins}
    rows: list[dict[str, Any]] = [
        {"name": spec.name, "version": spec.version, "plugin": loaded.agent_plugin[spec.name],
         "source": sources[loaded.agent_plugin[spec.name]], "games": list(spec.games),
         "builtin": is_builtin(spec), "description": spec.description,
         "options": spec.options.to_json()}
        for spec in specs
    ]
    if args.json:
        print_json(rows[0] if args.name is not None else rows)
        return 0
    if args.name is not None:
        print_agent_options(rows[0])
        return 0
    # Descriptions follow the table, one paragraph each, so the columns (a drop-in's source is a path) keep their width.
    table = Table(title="Agents", box=box.SIMPLE_HEAD)
    for column in ("agent", "version", "games", "plugin"):
        table.add_column(column, no_wrap=True)
    table.add_column("source", overflow="fold")
    for row in rows:
        games = ", ".join("any game" if game == ANY_GAME else str(game) for game in cast(list, row["games"]))
        table.add_row(literal(row["name"]), literal(row["version"]), literal(games),
                      literal(row["plugin"]), literal(row["source"]))
    console = output_console()
    console.print(table)
    for row in rows:
        console.print(Text.assemble((row["name"], "bold"), ": ", literal(row["description"] or "(no description)")))
    console.print("each agent's options: arena agents NAME")
    return 0


def run_games(args: argparse.Namespace) -> int:
    """List games."""
    loaded = registry(args)
    rows: list[dict[str, Any]] = [
        {"name": game.info.name, "id": game.info.id, "title": game.info.title,
         "players": list(game.info.player_counts),
         "default_players": game.info.default_players or game.info.player_counts[0],  # as resolve_options picks
         "options": {spec.name: {"default": spec.default, "description": spec.description, "type": spec.kind,
                                 "choices": None if spec.choices is None else list(spec.choices),
                                 "minimum": spec.minimum, "maximum": spec.maximum}
                     for spec in game.info.options},
         "score": game.info.score.label}
        for game in loaded.games.values()
    ]
    if args.json:
        print_json(rows)
        return 0
    table = Table(title="Games", box=box.SIMPLE_HEAD)
    for column in ("name", "id", "title", "players", "options"):
        table.add_column(column)
    for row in rows:
        options = ", ".join(f"{name} (default {spec['default']})" for name, spec in row["options"].items())
        players = ", ".join(map(str, row["players"]))
        if len(row["players"]) > 1:
            players += f" (default {row['default_players']})"
        table.add_row(literal(row["name"]), literal(row["id"]), literal(row["title"]), players, literal(options or "-"))
    output_console().print(table)
    for game in loaded.games.values():  # the score's unit; each option's type, range and help (arena play --NAME)
        output_console().print(Text.assemble((game.info.name, "bold"), ": scores ", literal(game.info.score.label)))
        for spec in game.info.options:
            output_console().print(Text.assemble("  --", literal(spec.help_line())))
    return 0
