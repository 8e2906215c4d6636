"""Agents that print: to check that each seat's output lands in a log of its own (arena.referee.seat_log).

* ``chatty`` prints, logs and writes to descriptor 2 with its ``marker`` option, then raises on its second
  decision (a traceback in its log).
* ``log-flood`` prints far past the seat log's bound and writes descriptor 1 directly until that fails, then
  reports what it saw (see README.md): the size its log reached, and the error of the write that failed.
* ``log-vandal`` tries to write where another seat's or the referee's output is, then reports what it could do.
"""

import errno
import glob
import json
import logging
import os
import sys

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Chatty(Agent):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.marker = str(self.options.get("marker", "chatty"))
        self.turns = 0
        print(f"{self.marker} built for seat {self.seat}")
        logging.basicConfig(level=logging.INFO)
        logging.getLogger("chatty").info("%s logged at start", self.marker)

    def act(self, observation):
        self.turns += 1
        print(f"{self.marker} turn {self.turns}", flush=False)
        os.write(2, f"{self.marker} raw\x1b[31m\n".encode())  # with a terminal escape: shown escaped
        if self.turns == 2:
            raise ValueError(f"{self.marker} gave up")
        return observation.legal[0]


class Flood(Agent):
    def act(self, observation):
        chunk = "y" * (1 << 20) + "\n"
        for _ in range(24):  # 24 MiB through print: never raises, the bound drops the rest
            print(chunk, end="")
        failure = None
        try:
            while True:
                os.write(1, chunk.encode())
        except OSError as error:
            failure = errno.errorcode.get(error.errno or 0, str(error.errno))
        size = os.fstat(1).st_size
        raise RuntimeError("REPORT " + json.dumps({"size": size, "failure": failure}))


class Vandal(Agent):
    def act(self, observation):
        done = []
        own = os.environ.get("TMPDIR", os.getcwd())
        targets = [os.path.join(os.path.dirname(own), "*", "stderr.log"), str(self.options.get("target", ""))]
        for pattern in targets:
            for path in glob.glob(pattern) or [pattern]:
                if not path or path.startswith(own + os.sep):
                    continue
                try:
                    with open(path, "a") as file:
                        file.write("VANDAL WAS HERE\n")
                    done.append(path)
                except OSError:
                    pass
        try:  # the referee reads its own log: a link elsewhere must not be followed
            os.unlink(os.path.join(own, "stderr.log"))
            os.symlink("/etc/passwd", os.path.join(own, "stderr.log"))
        except OSError:
            pass
        print("VANDAL WAS HERE", file=sys.stderr)
        raise RuntimeError("REPORT " + json.dumps({"wrote": done}))


@hookimpl
def arena_register_agents(register):
    for name, factory in (("chatty", Chatty), ("log-flood", Flood), ("log-vandal", Vandal)):
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=name, version="1"))
