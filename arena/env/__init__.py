"""Learning environments over arena's games: PettingZoo AEC and single-agent Gymnasium.

* ``aec_env(game, **game_options)``: every seat is a learner (``ArenaAECEnv``);
* ``gym_env(game, opponents=[...], seat=0, **game_options)``: one learner, arena agents in the other seats;
* ``Encoding`` (``arena.env.encoding``): what a game provides to be trained on.

``pip install -e '.[rl]'`` (in arena's folder) installs PettingZoo and Gymnasium; they are imported
only when an environment is made.  The encodings and action spaces of each game
are documented in ``docs/learning.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.agent import AgentSpec
from arena.env.encoding import Encoding, encoding_for
from arena.games.base import Game

if TYPE_CHECKING:
    from arena.env.aec import ArenaAECEnv
    from arena.env.gym import ArenaGymEnv

__all__ = ["Encoding", "aec_env", "encoding_for", "gym_env", "resolve_game"]


def resolve_game(game: str | Game) -> Game:
    """A ``Game`` object, or the installed game with that short name (built-ins and installed plugins)."""
    if isinstance(game, Game):
        return game
    from arena.plugin_system.loading import load_registry

    try:
        return load_registry(plugins_dir=None).registry.game(game)
    except KeyError as error:
        raise ValueError(error.args[0]) from None


def _without_rl_extra(error: ModuleNotFoundError) -> ModuleNotFoundError:
    """``error`` saying which install brings PettingZoo or Gymnasium (the rl extra, from arena's folder: an index's
    'arena' is another package); any other missing module is left as it was."""
    if (error.name or "").split(".")[0] not in ("pettingzoo", "gymnasium"):
        return error
    return ModuleNotFoundError(f"arena.env needs the rl extra: pip install -e '.[rl]' in arena's folder ({error})",
                               name=error.name)


def aec_env(game: str | Game, render_mode: str | None = None, **game_options: Any) -> ArenaAECEnv:
    """A PettingZoo AEC environment for ``game`` (a name such as ``"lorum"``, or a ``Game``).

    ``game_options`` are the game's options, ``players`` included (e.g. ``players=5`` for Lovat,
    ``deals=1`` for Lorum); ``ValueError`` names a bad one.
    """
    from arena.games.base import InvalidSetup

    try:
        from arena.env.aec import ArenaAECEnv
    except ModuleNotFoundError as error:
        raise _without_rl_extra(error) from None

    try:
        return ArenaAECEnv(resolve_game(game), game_options, render_mode=render_mode)
    except InvalidSetup as error:
        raise ValueError(str(error)) from None


def gym_env(game: str | Game, opponents: Sequence[str | AgentSpec], seat: int = 0,
            opponent_options: Sequence[Mapping[str, Any]] | None = None, render_mode: str | None = None,
            **game_options: Any) -> ArenaGymEnv:
    """A Gymnasium environment: the learner in ``seat``, ``opponents`` (agent names or specs) in the others, in order.

    Names are looked up among the built-in and installed agents.
    """
    from arena.plugin_system.loading import load_registry

    try:
        from arena.env.gym import ArenaGymEnv
    except ModuleNotFoundError as error:
        raise _without_rl_extra(error) from None

    registry = None
    specs = []
    for opponent in opponents:
        if isinstance(opponent, AgentSpec):
            specs.append(opponent)
            continue
        registry = registry or load_registry(plugins_dir=None).registry
        try:
            specs.append(registry.agent(opponent))
        except KeyError as error:
            raise ValueError(error.args[0]) from None
    return ArenaGymEnv(aec_env(game, render_mode=render_mode, **game_options), specs, seat, opponent_options)
