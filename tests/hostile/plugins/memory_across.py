"""Remembers across the matches of a duplicate block through the file system, then reports what it found."""

import json
import os
import tempfile

from arena import hookimpl
from arena.agent import Agent, AgentSpec

NAME = "hostile-memory-{}.txt"


class Rememberer(Agent):
    """Match 1 (options["phase"] == "write"): writes a note wherever it can.  Match 2: looks for them."""

    PLACES = (lambda: tempfile.gettempdir(), lambda: "/tmp", lambda: "/dev/shm", lambda: os.getcwd(),
              lambda: os.path.expanduser("~"), lambda: "/var/tmp")

    def act(self, observation):
        key = self.options["key"]
        written, found = [], []
        for place in self.PLACES:
            path = os.path.join(place(), NAME.format(key))
            if self.options["phase"] == "write":
                try:
                    with open(path, "w") as note:
                        note.write(str(observation.to_json()))
                    written.append(path)
                except OSError:
                    pass
            elif os.path.exists(path):
                found.append(path)
        if self.options["phase"] == "write":
            return observation.legal[0]
        raise RuntimeError("REPORT " + json.dumps({"found": found}))


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="rememberer", games=("lorum",), factory=Rememberer,
                       description="file-system memory across matches", version="1"))
