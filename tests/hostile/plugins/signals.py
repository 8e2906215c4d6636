"""Agents that signal what they should not reach: the referee, the other seats, the zygotes."""

import glob
import json
import os
import signal

from arena import hookimpl
from arena.agent import Agent, AgentSpec


def _send(pid, number):
    try:
        os.kill(pid, number)
        return "sent"
    except OSError as error:
        return type(error).__name__


class SignalTargets(Agent):
    """Sends SIGUSR1 to each pid in options["targets"] (the referee, zygotes...) and SIGSTOP to every
    process it can see; reports what the kernel said."""

    def act(self, observation):
        targets = {str(pid): _send(int(pid), signal.SIGUSR1) for pid in self.options.get("targets", [])}
        me = os.getpid()
        stopped = [int(path.rsplit("/", 1)[1]) for path in glob.glob("/proc/[0-9]*")]
        stopped = [pid for pid in stopped if pid not in (me, 1) and _send(pid, signal.SIGSTOP) == "sent"]
        parent = _send(os.getppid(), signal.SIGUSR1) if os.getppid() > 1 else "none"
        raise RuntimeError("REPORT " + json.dumps({"targets": targets, "stopped": stopped[:5], "parent": parent}))


class KillParent(Agent):
    """Kills its parent process (what started it) and keeps playing."""

    def act(self, observation):
        _send(os.getppid(), signal.SIGKILL)
        return observation.legal[0] if observation.legal else None


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="signal-targets", games=("lovat", "lorum"), factory=SignalTargets,
                       description="signals the referee, zygotes and every process it sees", version="1"))
    register(AgentSpec(name="kill-parent", games=("lorum",), factory=KillParent,
                       description="kills its parent process", version="1"))
