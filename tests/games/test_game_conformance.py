"""The game conformance kit (``arena.conformance.games.check_game``) on every registered game, and on games it must refuse."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import pytest

from arena.conformance.games import check_game
from arena.games.base import Action, Observation
from arena.games.lorum.game import LorumGame
from arena.games.lorum.state import LorumState
from arena.games.lovat import FACES, LovatGame
from arena.games.luck import LuckSpec
from arena.plugins import load_registry

GAMES = load_registry(plugins_dir=None).registry.games
"""Every game registered in this environment: the built-ins, and any installed plugin's the user trusts."""


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_registered_game_passes_the_kit(name: str) -> None:
    checked = check_game(GAMES[name])
    assert checked.games == 2 * len(GAMES[name].info.player_counts)
    assert checked.samples > 0  # both built-in games sample hidden deals, so information hiding was checked


def test_the_kit_checks_game_options_too() -> None:
    assert check_game(GAMES["lorum"], options={"deals": 1}, seeds=(3,)).games == 1


class _SamplerIgnoresTheObservation(LorumGame):
    """A sampler that deals afresh: the seat's own hand changes in the sampled state."""

    def sample_state(self, observation: Observation, rng: random.Random) -> LorumState:
        return self.new_state(rng.getrandbits(32), {})


class _JsonLosesAField(LorumGame):
    def observation_from_json(self, data: Mapping[str, Any]) -> Any:
        observation = super().observation_from_json(data)
        return dataclasses.replace(observation, hand=observation.hand[1:])


def _illegal(observation: Observation, rng: random.Random) -> Action:
    return "no such card"


class _RandomPolicyCheats(LorumGame):
    info = dataclasses.replace(LorumGame.info, random_action=_illegal)


class _SeatHandFromTheWrongSeat(LorumGame):
    """A state-read hand line (for the site) that reads the next seat's hand."""

    def describe_seat_hand(self, state: Any, seat: int) -> str | None:
        return super().describe_seat_hand(state, (seat + 1) % 4)


@pytest.mark.parametrize(("game", "message"), [
    (_SamplerIgnoresTheObservation(), "'dealer', 'hand']: the observation shows what the seat cannot know"),
    (_JsonLosesAField(), "observation_from_json(to_json()) differs from the observation"),
    (_RandomPolicyCheats(), "GameInfo.random_action chose 'no such card', which is not legal"),
    (_SeatHandFromTheWrongSeat(), "describe_seat_hand(state, 0) differs from describe_hand of the seat's observation"),
])
def test_the_kit_names_what_to_fix(game: LorumGame, message: str) -> None:
    with pytest.raises(AssertionError) as failed:
        check_game(game, seeds=(0,))
    assert message in str(failed.value) and str(failed.value).startswith("lorum (4 players, seed 0), decision 0")


@pytest.mark.parametrize(("luck", "message"), [
    (LuckSpec(faces=(("coin", ("heads", "tails")),), reference="greedy", text="a coin"),
     "lovat: GameInfo.luck values chance kind 'coin', which GameInfo.chance does not declare"),
    (LuckSpec(faces=(("die", FACES[:-1]),), reference="greedy", text="a die without its blank"),
     "is not among the faces GameInfo.luck lists for it"),
])
def test_the_kit_holds_the_luck_declaration_to_the_chance_the_game_draws(luck: LuckSpec, message: str) -> None:
    class Declared(LovatGame):
        info = dataclasses.replace(LovatGame.info, luck=luck)

    with pytest.raises(AssertionError, match=message):
        check_game(Declared(), players=(3,), seeds=range(8))
