"""The ``argparse`` type of ``--address``: a malformed cluster address is a usage error before anything starts."""

from __future__ import annotations

import argparse

from arena.tournament.cluster import address_problem


def cluster_address(text: str) -> str:
    """``text`` when it is a Ray cluster address arena can use (``HOST:PORT``, ``ray://HOST:PORT``, ``auto``)."""
    problem = address_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text
