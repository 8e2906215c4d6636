"""Public events kept as tuples while a game is played, and made into the public event dicts when read.

A game logs an event on almost every decision, and many of those events are
never read: search agents' rollouts and clones only play on.  A dict of six keys costs about twice a tuple of the
same values, so a game keeps each event as a tuple ``(type, value, ...)`` whose
values follow the event's keys, and ``GameState.events`` turns the ones asked
for into dicts (``EventKinds.reader``): the same keys, in the same order, with
the same values, every time they are read.  Values that are lists in the event
(e.g. a list of seats) are stored as those lists, never changed afterwards, so
a dict shares them as the old log's dicts did.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

Event = tuple[Any, ...]
"""A stored event: its type, then the values of its other keys in order."""


class EventKinds:
    """The keys of every event type of one game, and a maker per type that builds its dict from a stored event."""

    __slots__ = ("keys", "makers")

    def __init__(self, kinds: Mapping[str, tuple[str, ...]]) -> None:
        self.keys = dict(kinds)
        """By event type, the keys after ``"type"``, in the order of the public event dict."""
        self.makers: dict[str, Callable[[Event], dict[str, Any]]] = {}
        for kind, keys in kinds.items():
            if not all(key.isidentifier() and key != "type" for key in keys) or len(set(keys)) != len(keys):
                raise ValueError(f"event type {kind!r}: keys must be distinct identifiers other than 'type'")
            # A dict display per type, from the event unpacked into locals (generated from the key names): about
            # half what dict(zip(keys, event)) costs, and an event of the wrong length fails to unpack.
            names = [f"v{index}" for index in range(len(keys) + 1)]
            items = "".join(f", {key!r}: {name}" for key, name in zip(keys, names[1:]))
            namespace: dict[str, Any] = {}
            exec(f"def make(event):\n    {', '.join(names)}, = event\n    return {{'type': v0{items}}}\n", namespace)
            self.makers[kind] = namespace["make"]

    def reader(self) -> Callable[..., list[dict[str, Any]]]:
        """A ``GameState.events(start=0)`` for states that keep their stored events in ``_events``.

        The state's method is this function itself (one call fewer per read), and the referee asks after every
        decision for the events since its last ask, mostly none or one: those two cases skip the slice and the
        comprehension.
        """
        makers = self.makers

        def events(state: Any, start: int = 0) -> list[dict[str, Any]]:
            """The public log from event ``start`` on: new dicts, made from the stored events."""
            stored = state._events
            left = len(stored) - start
            if left <= 0:
                return []
            if left == 1:
                event = stored[start]
                return [makers[event[0]](event)]
            return [makers[event[0]](event) for event in stored[start:]]

        return events
