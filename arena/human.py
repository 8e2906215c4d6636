"""A person playing one seat in the terminal, seeing only what that seat may see."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TextIO

from arena.agent import Agent
from arena.games.base import Action, Game, Observation


class InputEnded(BaseException):
    """The person's input stream closed before the game ended.

    A ``BaseException`` on purpose: the referee records an agent's ordinary
    exceptions as faults and plays on, but a person leaving ends the game.
    """


class HumanAgent(Agent):
    """Shows the seat's observation and offers its legal choices; bad input is asked again."""

    def __init__(
        self,
        seat: int,
        game: Game,
        players: int,
        read: Callable[[str], str],
        out: TextIO,
    ) -> None:
        super().__init__(seat=seat, game=game.info, players=players, seed=0, options={})
        self.engine = game
        self.read = read
        self.out = out

    def act(self, observation: Observation) -> Action:
        """Ask the person until they give a legal action."""
        self.out.write(f"\n--- seat {self.seat}, your decision ({observation.phase}) ---\n")
        for line in self.engine.describe_observation(observation):
            self.out.write(f"  {line}\n")
        if observation.legal:
            return self._choose(observation)
        return self._type_in(observation)

    def _choose(self, observation: Observation) -> Action:
        for number, action in enumerate(observation.legal, start=1):
            self.out.write(f"  [{number}] {self.engine.describe_action(observation, action)}\n")
        while True:
            answer = self._ask(f"choose 1-{len(observation.legal)}: ")
            if answer.isdigit() and 1 <= int(answer) <= len(observation.legal):
                return observation.legal[int(answer) - 1]
            if answer in observation.legal:
                return answer
            self.out.write(f"  '{answer}' is not a choice; type a number from 1 to {len(observation.legal)}\n")

    def _type_in(self, observation: Observation) -> Action:
        """For decisions described by a rule (Lovat's keep): type the card ids separated by spaces."""
        while True:
            answer = self._ask("type your choice (card ids separated by spaces): ")
            action = tuple(sorted(answer.replace(",", " ").split()))
            problem = self.engine.action_error(observation, action)
            if problem is None:
                return action
            self.out.write(f"  not legal: {problem}\n")

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt).strip()
        except EOFError:
            raise InputEnded("input ended before the game did") from None

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Events are printed by the command's log already."""
