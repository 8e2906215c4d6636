"""Probing agents: each hunts for something it must not reach, then reports what it found (see README.md)."""

import gc
import glob
import inspect
import json
import os
import sys

from arena import hookimpl
from arena.agent import Agent, AgentSpec
from arena.games.base import GameState, Observation


class Probe(Agent):
    """Plays legal[0] until its ``probe`` decision, then raises its findings."""

    def act(self, observation):
        raise RuntimeError("REPORT " + json.dumps(self.probe(observation), default=str))

    def probe(self, observation):
        return {}


class GcSnoop(Probe):
    """Every object in the process: game states, or observations of other seats."""

    def probe(self, observation):
        found = []
        for thing in gc.get_objects():
            try:
                if isinstance(thing, GameState):
                    found.append("state")
                elif isinstance(thing, Observation) and getattr(thing, "seat", self.seat) != self.seat:
                    found.append("observation")
            except Exception:
                pass
        return {"found": sorted(set(found))}


class FrameSnoop(Probe):
    """Every frame of every thread and the whole call stack: anything that looks like the game state."""

    def probe(self, observation):
        found = []
        frames = list(sys._current_frames().values()) + [info.frame for info in inspect.stack()]
        for frame in frames:
            while frame is not None:
                for value in list(frame.f_locals.values()):
                    if isinstance(value, GameState) or type(value).__name__ in ("Match", "TrustedSeat"):
                        found.append(type(value).__name__)
                frame = frame.f_back
        return {"found": sorted(set(found))}


class ProcSnoop(Probe):
    """Other processes through /proc: their memory, environment and command lines (other seats' hands)."""

    def probe(self, observation):
        me = os.getpid()
        visible, read = [], []
        for path in glob.glob("/proc/[0-9]*"):
            pid = int(path.rsplit("/", 1)[1])
            if pid == me:
                continue
            visible.append(pid)
            for what in ("mem", "environ", "cmdline", "maps"):
                try:
                    with open(f"{path}/{what}", "rb") as handle:
                        if what == "mem":
                            handle.seek(0x400000)
                        if handle.read(64):
                            read.append(f"{pid}/{what}")
                except (OSError, ValueError, OverflowError):
                    pass
        return {"visible": len(visible), "read": read[:5]}


class FileSnoop(Probe):
    """The store, the leaderboards folder, the working directory and the home folder."""

    def probe(self, observation):
        opened = []
        for path in list(self.options.get("paths", [])) + [os.path.expanduser("~"), "/root", os.getcwd()]:
            try:
                if os.path.isdir(path):
                    os.listdir(path)
                else:
                    with open(path, "rb") as handle:
                        handle.read(16)
                opened.append(path)
            except OSError:
                pass
        return {"opened": opened, "cwd": os.getcwd()}


class NetSnoop(Probe):
    """The network: a TCP connection to a port the test listens on."""

    def probe(self, observation):
        import socket

        try:
            socket.create_connection(("127.0.0.1", int(self.options["port"])), timeout=1).close()
            return {"connected": True}
        except OSError as error:
            return {"connected": False, "error": type(error).__name__}


AGENTS = {"gc-snoop": GcSnoop, "frame-snoop": FrameSnoop, "proc-snoop": ProcSnoop, "file-snoop": FileSnoop,
          "net-snoop": NetSnoop}


@hookimpl
def arena_register_agents(register):
    for name, factory in AGENTS.items():
        register(AgentSpec(name=name, games=("lovat", "lorum"), factory=factory, description=factory.__doc__,
                           version="1"))
