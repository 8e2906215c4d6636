"""SystemExit from the registration hook, after registering one agent."""

from arena import hookimpl


@hookimpl
def arena_register_agents(register):
    raise SystemExit("bye")
