"""Bad agent ``bad-snoop``: hunts for the game state instead of trusting its observation.

On each of its first ``options["snoops"]`` decisions (default 3) it searches
``gc.get_objects()``, the call stack (``inspect.stack()`` and ``sys._getframe``
chains) for game states and other seats' observations, and appends what it
finds that looks like another seat's hand to ``options["report"]`` (JSON,
``{"findings": [{"via", "seat", "hand"}], "fds": [...]}``).  It plays legally
(randomly) throughout.  In isolated mode it must find nothing.
"""

import gc
import inspect
import json
import os
import sys

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.base import GameState, Observation
from arena_agents.lorum import RandomLorumAgent
from arena_agents.lovat import RandomLovatAgent


class SnoopingAgent(Agent):
    def __init__(self, seat, game, players, seed, options):
        super().__init__(seat=seat, game=game, players=players, seed=seed, options=options)
        inner = RandomLovatAgent if game.name == "lovat" else RandomLorumAgent
        self.inner = inner(seat=seat, game=game, players=players, seed=seed, options={})
        self.decisions = 0
        self.findings = []

    def act(self, observation):
        self.decisions += 1
        if self.decisions <= self.options.get("snoops", 3):
            self.snoop()
        return self.inner.act(observation)

    def snoop(self):
        for thing in gc.get_objects():
            self.inspect_object(thing, "gc")
        for frame_info in inspect.stack():
            for value in list(frame_info.frame.f_locals.values()):
                self.inspect_object(value, "inspect")
        frame = sys._getframe()
        while frame is not None:
            for value in list(frame.f_locals.values()):
                self.inspect_object(value, "frame")
                if isinstance(value, dict):
                    for item in list(value.values()):
                        self.inspect_object(item, "frame")
            frame = frame.f_back
        self.write()

    def inspect_object(self, thing, via):
        try:
            if isinstance(thing, GameState):
                for seat in range(thing.players):
                    if seat != self.seat:
                        self.note(via, seat, thing.observation(seat).hand)
            elif isinstance(thing, Observation) and thing.seat != self.seat:
                self.note(via, thing.seat, getattr(thing, "hand", ()))
        except Exception:
            pass

    def note(self, via, seat, hand):
        entry = {"via": via, "seat": seat, "hand": list(hand)}
        if hand and entry not in self.findings:
            self.findings.append(entry)

    def write(self):
        report = self.options.get("report")
        if not report:
            return
        fds = {}
        for name in os.listdir("/proc/self/fd"):
            try:
                fds[name] = os.readlink(f"/proc/self/fd/{name}")
            except OSError:
                pass
        with open(report, "w") as out:
            json.dump({"findings": self.findings, "fds": fds}, out)


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="bad-snoop", games=("lovat", "lorum"), factory=SnoopingAgent,
                       description="hunts for the hidden game state", version="1.0"))
