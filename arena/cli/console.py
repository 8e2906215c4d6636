"""The console every command prints to: the terminal's width on a terminal, whole lines when piped."""

from __future__ import annotations

import os
import sys

from rich.console import Console

PIPED_WIDTH = 400
"""Columns a command's output may use when it goes to a file or a pipe: wide enough that no table row or line of
prose is folded (a folded row breaks ``grep`` and ``cut``), narrow enough that a centred title stays near its
table."""


def output_console(stderr: bool = False) -> Console:
    """A rich console writing to stdout (or stderr): folded to the terminal on a terminal; when piped, at
    ``PIPED_WIDTH`` columns, unless ``COLUMNS`` says otherwise (rich's default was 80, which folded listings)."""
    stream = sys.stderr if stderr else sys.stdout
    if "COLUMNS" in os.environ or stream.isatty():
        return Console(stderr=stderr)
    return Console(stderr=stderr, width=PIPED_WIDTH)
