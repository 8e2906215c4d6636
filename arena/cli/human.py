"""A person playing one seat in the terminal, seeing only what that seat may see.

Generic over games: the game renders the seat's view (``Game.describe_observation``), labels each choice
(``Game.describe_action``), reads a typed action (``Game.parse_action``) and says why one is illegal
(``Game.action_error``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TextIO

from arena.agent import Agent
from arena.games.base import Action, Game, Observation


class InputEnded(KeyboardInterrupt):
    """The person's input stream closed before the game ended.

    A ``KeyboardInterrupt`` on purpose: the referee records whatever else an
    agent raises as its fault and plays on (``SystemExit`` included), but a
    person leaving ends the game, as their Ctrl-C does.
    """


class HumanAgent(Agent):
    """Shows the seat's observation and offers its legal choices; bad input is asked again.

    A decision with one legal choice is played at once and said so; a choice is typed by its number or its
    name in any case.  ``names`` labels the seats in the view (e.g. the agents' names).
    """

    def __init__(
        self,
        seat: int,
        game: Game,
        players: int,
        read: Callable[[str], str],
        out: TextIO,
        names: Sequence[str] = (),
    ) -> None:
        super().__init__(seat=seat, game=game.info, players=players, seed=0, options={})
        self.engine = game
        self.read = read
        self.out = out
        self.names = tuple(names)

    def act(self, observation: Observation) -> Action:
        """Ask the person until they give a legal action; play a forced one without asking."""
        self.out.write(f"\n--- seat {self.seat}, your decision ({observation.phase}) ---\n")
        for line in self.engine.describe_observation(observation, self.names):
            self.out.write(f"  {line}\n")
        if len(observation.legal) == 1:
            [action] = observation.legal
            self.out.write(f"  forced: {self.engine.describe_action(observation, action)} "
                           "(your only legal move, played for you)\n")
            return action
        if observation.legal:
            return self._choose(observation)
        return self._type_in(observation)

    def _choose(self, observation: Observation) -> Action:
        count = len(observation.legal)
        for number, action in enumerate(observation.legal, start=1):
            self.out.write(f"  [{number}] {self.engine.describe_action(observation, action)}\n")
        while True:
            answer = self._ask(f"choose 1-{count} or type a name: ")
            if answer.isdigit() and 1 <= int(answer) <= count:
                return observation.legal[int(answer) - 1]
            typed = self.engine.parse_action(observation, answer)
            if typed is not None and typed in observation.legal:
                return typed
            self.out.write(f"  '{answer}' is not a choice; type a number from 1 to {count} or a choice's name\n")

    def _type_in(self, observation: Observation) -> Action:
        """For decisions described by a rule (Lovat's keep): type the card ids in any order, separated by spaces."""
        while True:
            answer = self._ask("type your choice (card ids in any order, separated by spaces): ")
            action = self.engine.parse_action(observation, answer)
            problem = "nothing typed" if action is None else self.engine.action_error(observation, action)
            if problem is None and action is not None:
                return action
            self.out.write(f"  not legal: {problem}\n")

    def _ask(self, prompt: str) -> str:
        try:
            return self.read(prompt).strip()
        except EOFError:
            raise InputEnded("input ended before the game did") from None

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Events are printed by the command's log already."""
