"""Rich markup, ANSI escapes and control characters in every text field a listing shows."""

from arena import hookimpl
from arena.agent import Agent, AgentSpec


class Plain(Agent):
    def act(self, observation):
        return observation.legal[0]


@hookimpl
def arena_register_agents(register):
    register(AgentSpec(name="markup", games=("lorum",), factory=Plain, version="[bold red]9[/]",
                       description="[red]red[/red] [link=https://example.invalid]click[/link] \x1b[31mansi\r\x07"))
    register(AgentSpec(name="x" * 5000, games=("lorum",), factory=Plain, version="1", description="huge name"))
    register(AgentSpec(name="ev\nil", games=("lorum",), factory=Plain, version="1", description="newline"))
    register(AgentSpec(name="adv-nl\n", games=("lorum",), factory=Plain, version="1",
                       description="a newline at the end of the name, which forges a line of a listing"))
    register(AgentSpec(name="escape-version", games=("lorum",), factory=Plain, version="9\x1b[2J\r",
                       description="a version written into leaderboard.csv, where a bare CR splits the row"))
    register(AgentSpec(name="long-version", games=("lorum",), factory=Plain, version="9" * 1000,
                       description="a 1000-character version"))
