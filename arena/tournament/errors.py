"""The one error a tournament run reports to its user."""


class TournamentError(Exception):
    """A tournament that cannot run (bad agent at run time, Ray unreachable...); one-line message."""
