"""The Python API: play a match, run a tournament and read its records from a script or a notebook.

``arena.play_match``, ``arena.run_tournament`` and ``arena.load_records`` are
these functions (``arena.ratings.fit`` rates what ``load_records`` returns).
They are thin: the referee, the tournament runner and the store do the work,
exactly as ``arena play`` and ``arena run`` have them do it.  Every error a
caller can cause is a ``ValueError`` (a ``ConfigError`` for a config) with a
one-line message.  Examples: ``docs/python-api.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.agent import AgentSpec
from arena.games.base import Game, InvalidSetup
from arena.plugin_system.extensions import install
from arena.plugin_system.loading import DEFAULT_PLUGINS_DIR, PluginManager, Registry, load_registry
from arena.records.seeding import derive_seed
from arena.referee import Limits, MatchResult, SeatPlan
from arena.referee import play_match as referee_play_match
from arena.tournament.config import TournamentConfig
from arena.tournament.config_loading import config_from_dict, load_config
from arena.tournament.runner import Progress, RunSummary
from arena.tournament.runner import run_tournament as runner_run_tournament
from arena.tournament.store import DEFAULT_LEADERBOARDS, Store, StoreError, store_path

__all__ = ["load_records", "play_match", "run_tournament"]


def _plugins(plugins_dir: Path | str | None) -> PluginManager:
    """Every plugin loaded once, with the trusted plugins' rating methods and formats installed."""
    manager = load_registry(plugins_dir=plugins_dir)
    install(manager.registry)
    return manager


def _registry(plugins_dir: Path | str | None) -> Registry:
    return _plugins(plugins_dir).registry


def play_match(
    game: str | Game,
    agents: Sequence[str | AgentSpec],
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    agent_options: Sequence[Mapping[str, Any]] | None = None,
    isolation: str = "auto",
    limits: Limits | None = None,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    match_id: str | None = None,
) -> MatchResult:
    """Play one match of ``game`` between ``agents`` (one per seat, in seat order) and return it.

    ``agents`` are registered agent names (or ``AgentSpec`` objects); the number
    of seats is their number.  ``options`` are the game's options (``deals`` for
    Lorum); ``agent_options`` one mapping per seat.  Seat ``i``'s agent gets the
    seed ``derive_seed(seed, "agent", i)``, so a seed fixes the whole match.
    ``isolation`` and ``limits`` are the referee's (``arena.referee.play_match``).
    The result's ``record`` is the match record (docs/records.md); its match id is
    ``match_id``, by default ``<game>-<seed>-<entry names>`` (``arena.ratings.fit`` needs one).
    """
    registry = _registry(plugins_dir)
    if not isinstance(game, Game):
        try:
            game = registry.game(game)
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    specs = []
    for agent in agents:
        try:
            specs.append(agent if isinstance(agent, AgentSpec) else registry.agent(agent))
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    for spec in specs:
        if not spec.plays(game.info.name):
            raise ValueError(f"agent {spec.name!r} does not play {game.info.name} (it plays {', '.join(spec.games)})")
    try:
        resolved = game.info.resolve_options(len(specs), options)
    except InvalidSetup as error:
        raise ValueError(str(error)) from None
    per_seat = list(agent_options) if agent_options is not None else [{}] * len(specs)
    if len(per_seat) != len(specs):
        raise ValueError(f"agent_options has {len(per_seat)} entries for {len(specs)} seats")
    names = _entry_names([spec.name for spec in specs])
    seats = [
        SeatPlan(name=name, spec=spec, options=dict(seat_options), seed=derive_seed(seed, "agent", seat))
        for seat, (name, spec, seat_options) in enumerate(zip(names, specs, per_seat, strict=True))
    ]
    if match_id is None:
        match_id = "-".join([game.info.name, str(seed), *names])
    return referee_play_match(game, resolved, seed, seats, limits=limits, isolation=isolation, match_id=match_id)


def _entry_names(names: Sequence[str]) -> list[str]:
    """Each name, with ``-2``, ``-3``... on its repeats (results name seats by entry)."""
    seen: dict[str, int] = {}
    entries = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        entries.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return entries


def run_tournament(
    config: str | Path | Mapping[str, Any] | TournamentConfig,
    *,
    leaderboards: Path | str = DEFAULT_LEADERBOARDS,
    plugins_dir: Path | str | None = DEFAULT_PLUGINS_DIR,
    workers: int | None = None,
    address: str | None = None,
    resume: bool = False,
    on_progress: Callable[[Progress], None] | None = None,
) -> RunSummary:
    """Play a tournament and store it in ``leaderboards/<name>/results.sqlite``, as ``arena run`` does.

    ``config`` is a TOML file (docs/configs.md), the same data as a dict, or a
    ``TournamentConfig``.  ``workers=1`` plays serially in this process; otherwise
    Ray runs the matches.  A bad config raises ``ConfigError`` listing every problem.
    """
    manager = _plugins(plugins_dir)  # loaded once: the config is read and the tournament played with it
    if not isinstance(config, TournamentConfig):
        registry = manager.registry
        known_games = {name: item.info for name, item in registry.games.items()}
        known_agents = {name: set(spec.games) for name, spec in registry.agents.items()}
        if isinstance(config, Mapping):
            config = config_from_dict(config, known_games, known_agents)
        else:
            config = load_config(config, known_games, known_agents)
    return runner_run_tournament(config, leaderboards=leaderboards, plugins_dir=plugins_dir, workers=workers,
                                 address=address, resume=resume, on_progress=on_progress, plugins=manager)


def load_records(tournament: str | Path, *, leaderboards: Path | str = DEFAULT_LEADERBOARDS) -> list[dict[str, Any]]:
    """Every stored match record of a tournament (docs/records.md), in schedule order.

    ``tournament`` is the tournament's name (looked up in ``leaderboards``) or
    the path of its ``results.sqlite``.
    """
    path = Path(tournament)
    if path.suffix != ".sqlite":
        path = store_path(leaderboards, str(tournament))
    if not path.is_file():
        raise ValueError(f"no stored tournament at {path}")
    try:
        store = Store.open_readonly(path)
    except StoreError as error:
        raise ValueError(str(error)) from None
    with store:
        return [store.record(row.id) for row in store.rows()]

