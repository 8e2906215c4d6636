"""The errors a tournament run reports to its user, and which of them are the request's fault."""


class RequestError(Exception):
    """Mixed into an error whose cause is the request itself, not the work: a name that is not there, a config
    that differs from the stored one, options that contradict each other.  The command line exits 2 for these
    (as for a usage error) and 1 for a failure of the work itself."""


class TournamentError(Exception):
    """A tournament that cannot run (bad agent at run time, Ray unreachable...); one-line message."""


class StartupLimitError(TournamentError):
    """A run stopped because entry ``entry`` failed to start in each of its first matches (one-line message);
    ``cause``, the last start-up fault's kind and message."""

    def __init__(self, message: str, entry: str, cause: str) -> None:
        super().__init__(message)
        self.entry = entry
        self.cause = cause


class TournamentRequestError(TournamentError, RequestError):
    """A tournament that cannot run as asked (its config no longer matches the stored matches)."""


class StoreError(Exception):
    """A store that cannot be used as asked (different config, not found...); one-line message."""


class StoreRequestError(StoreError, RequestError):
    """A store asked for what it does not hold: no such tournament or match, another config, a bad name."""
