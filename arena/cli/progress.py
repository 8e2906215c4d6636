"""The live progress display of the commands that play matches (``arena run``, ``arena ladder run``)."""

from __future__ import annotations

from typing import Any

from rich.progress import Progress, TaskID


class LazyProgress(Progress):
    """A rich ``Progress`` that appears with its first task: a command refused before any progress (a config
    that differs from the stored one, a missing option) prints its one-line error and nothing else, not even
    the blank line an empty display leaves on stdout when it stops."""

    def __enter__(self) -> LazyProgress:
        return self

    def add_task(self, *args: Any, **kwargs: Any) -> TaskID:
        """Add a task, showing the display at the first."""
        if not self.task_ids:
            self.start()
        return super().add_task(*args, **kwargs)

    def stop(self) -> None:
        """Stop the display if it was ever shown (rich's own stop prints a line break off a terminal even then)."""
        if self.live.is_started:
            super().stop()
