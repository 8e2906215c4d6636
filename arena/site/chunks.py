"""The site's data files: the match list and the match pages' steps, in chunks a page loads on demand.

A page opened from ``file://`` may not ``fetch()`` a local file, so each chunk is a script that hands its data
to the page: ``arenaChunk(kind, number, data)``.  Match chunks hold ``MATCH_CHUNK`` consecutive schedule
positions each (``idx // MATCH_CHUNK``), gzip-compressed and base64-encoded (the page inflates them with the
browser's ``DecompressionStream``): a match's steps are text that repeats itself, and compress tenfold.

Match chunks are built incrementally: a chunk whose matches are the same as at the last build is kept, with
the per-agent decision times and sandbox levels it contributed (``data/manifest.json``).  Only new matches are
replayed, so publishing again after a few more matches costs only those.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import gzip
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from arena.games.base import Game
from arena.records.log import header_lines, log_steps, seat_names
from arena.site.parallel import Job, build_chunks
from arena.site.stats import MoveTimes, list_row
from arena.tournament.store import MatchRow, Store

if TYPE_CHECKING:
    from arena.games.drawing import Table

MATCH_CHUNK = 100
"""Matches per match-data chunk (schedule positions ``n * MATCH_CHUNK`` up to the next)."""

LIST_CHUNK = 1000
"""Rows per match-list chunk."""

DATA_FOLDER = "data"
"""Where the chunks live, inside the site's folder."""

MANIFEST = "manifest.json"
"""The build cache: per match chunk, what it holds and what it contributed to the front page."""

BUILD_VERSION = 4
"""Bumped whenever a match chunk's contents change shape: every chunk is then rebuilt."""


def chunk_script(kind: str, number: int, payload: str) -> str:
    """A data chunk as a script: ``payload`` is JSON text, or a JSON string of base64 gzip."""
    return f'arenaChunk("{kind}",{number},{payload});\n'


def packed(data: Any) -> str:
    """``data`` as JSON, gzip-compressed, base64-encoded, as a JSON string literal."""
    return _compressed(_json(data))


def _json(data: Any) -> bytes:
    """``data`` as compact JSON: orjson's where it can write the value (a tenth of ``json.dumps`` 's time on a
    match page, which is mostly small arrays), else ``json.dumps`` 's (integers past 64 bits, which a record may
    hold); both write a tuple, named or not, as an array."""
    try:
        return orjson.dumps(data, default=_array)
    except TypeError:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def _compressed(raw: bytes) -> str:
    """JSON text gzip-compressed, base64-encoded, as a JSON string literal."""
    return json.dumps(base64.b64encode(gzip.compress(raw, compresslevel=5, mtime=0)).decode())


def _array(value: Any) -> tuple[Any, ...]:
    """A named tuple (``SeatView``) as the plain tuple orjson writes as an array; TypeError for anything else."""
    if isinstance(value, tuple):
        return tuple(value)
    raise TypeError(f"{type(value).__name__} is not JSON data")


def unpacked(script: str) -> Any:
    """The data inside a packed chunk script (the inverse of ``chunk_script(..., packed(data))``, for tests)."""
    literal = script[script.index(",", script.index(",") + 1) + 1: script.rindex(")")]
    return json.loads(gzip.decompress(base64.b64decode(json.loads(literal))))


def match_page(game: Game | None, record: Mapping[str, Any]) -> dict[str, Any]:
    """What the match page shows of one match: the log's header and steps (with hands), the result, the record.

    Each step is ``[move, seat, decision, secret, seconds, faults, events, hands, table]`` (``arena.records.log``;
    ``table`` is what changed in the scene the viewer draws, ``scene_change``, or None).
    Without the game installed, or for a record the engine refuses, ``steps`` is None and ``error`` says why.
    """
    names = seat_names(record)
    page: dict[str, Any] = {"id": record.get("match"), "names": names, "result": record.get("result"),
                            "faults": record.get("faults", []), "record": record, "steps": None}
    if game is None:
        page["error"] = f"game {record.get('game')!r} is not installed: no steps to show"
        return page
    try:
        page["header"] = header_lines(game, record["seed"], names)
        steps = []
        scene: Table | None = None
        for step in log_steps(game, record, hands=True, tables=True):
            # The step's tuples stay tuples: ``json`` writes them as the same arrays, without a copy each.
            steps.append([step.move, step.seat, step.decision, step.secret, step.seconds, step.faults,
                          step.events, step.hands, scene_change(scene, step.table)])
            scene = step.table or scene
        page["steps"] = steps
    except Exception as error:  # a damaged record: the page says so, the rest of the site stands
        page["error"] = f"the record cannot be replayed: {type(error).__name__}: {error}"
        page["steps"] = None
    return page


def scene_change(before: Table | None, after: Table | None) -> dict[str, Any] | None:
    """What the viewer needs to turn the scene ``before`` into ``after`` (as ``Table.to_json`` scenes).

    The first scene goes whole; after it, only what changed: of ``m`` (the middle) the plays added when the
    middle only grew (``p``), else the whole; ``i``, ``t``, ``a`` and ``f`` whole when they changed; instead of
    ``s`` (every seat), ``r`` lists ``[seat, index]`` for each seat whose hand only lost the card at ``index``,
    and ``d`` lists ``[seat, field, value]`` for every other field of a seat's view that changed (``field`` its
    place in ``SeatView``).  A step moves a card or two, so a match's scenes shrink to a fraction, and so does
    the site's build time (JSON and gzip) and download.  None when there is no scene (``site.js``
    ``applyScene`` is the inverse; ``scenes`` here, for tests).
    """
    if after is None or before is None:
        return None if after is None else after.to_json()
    change: dict[str, Any] = {}
    if after.middle != before.middle:
        grown = len(before.middle)
        if len(after.middle) > grown and after.middle[:grown] == before.middle:
            change["p"] = after.middle[grown:]
        else:
            change["m"] = after.middle
    if after.info != before.info:
        change["i"] = after.info
    if after.to_move != before.to_move:
        change["t"] = after.to_move
    if after.accent != before.accent:
        change["a"] = after.accent
    if after.faded != before.faded:
        change["f"] = after.faded
    taken: list[list[int]] = []
    fields: list[list[Any]] = []
    for seat, (view, old) in enumerate(zip(after.seats, before.seats, strict=True)):
        if view is old or view == old:  # a seat a game did not redraw is the same object
            continue
        if view.hand != old.hand:
            index = _card_taken(old.hand, view.hand)
            if index is None:
                fields.append([seat, 0, view.hand])
            else:
                taken.append([seat, index])
        for field in range(1, len(view)):
            if view[field] != old[field]:
                fields.append([seat, field, view[field]])
    if taken:
        change["r"] = taken
    if fields:
        change["d"] = fields
    return change


def _card_taken(hand: Sequence[str] | None, held: Sequence[str] | None) -> int | None:
    """Where in ``hand`` the one card is that ``held`` lacks, when that is their only difference (else None)."""
    if hand is None or held is None or len(held) != len(hand) - 1:
        return None
    for index, card in enumerate(held):
        if card != hand[index]:
            return index if held[index:] == hand[index + 1:] else None
    return len(held)


def scenes(steps: Sequence[Sequence[Any]]) -> list[dict[str, Any] | None]:
    """The whole scene at each step of a match page's steps (undoing ``scene_change``, as the viewer does), as
    JSON arrays and objects (the page's steps as the browser reads them: ``json.loads`` of the chunk)."""
    shown: list[dict[str, Any] | None] = []
    scene: dict[str, Any] | None = None
    for step in steps:
        change = step[8]
        if change is not None:
            scene = {**(scene or {}), **change}
            if "p" in scene:
                scene["m"] = [*scene["m"], *scene.pop("p")]
            seats = list(scene["s"])
            for seat, index in scene.pop("r", ()):
                view = list(seats[seat])
                view[0] = [*view[0][:index], *view[0][index + 1:]]
                seats[seat] = view
            for seat, field, value in scene.pop("d", ()):
                view = list(seats[seat])
                view[field] = value
                seats[seat] = view
            scene["s"] = seats
        shown.append(scene)
    return shown


def _chunk_key(rows: Sequence[MatchRow]) -> str:
    text = json.dumps([BUILD_VERSION, [(row.idx, row.id) for row in rows]])
    return hashlib.sha256(text.encode()).hexdigest()


def write_match_chunks(folder: Path, rows: Sequence[MatchRow], store: Store, game: Game | None,
                       progress: Callable[[int, int], None] | None = None) -> tuple[MoveTimes, dict[str, list[str]]]:
    """Write every match chunk that changed since the last build; return the decision times and sandbox levels.

    The sandbox levels are per agent, as ``"isolation/sandbox"`` strings seen in its matches' records.
    ``progress(done, total)`` is called after each chunk (counting chunks kept from the last build).  A large
    build writes its chunks on every core (``arena.site.parallel``).
    """
    data = folder / DATA_FOLDER
    data.mkdir(parents=True, exist_ok=True)
    manifest_path = data / MANIFEST
    try:
        previous = json.loads(manifest_path.read_text())
        if previous.get("version") != BUILD_VERSION:
            previous = {}
    except (OSError, ValueError):
        previous = {}
    old_chunks: Mapping[str, Any] = previous.get("chunks", {})
    grouped: dict[int, list[MatchRow]] = {}
    for row in rows:
        grouped.setdefault(row.idx // MATCH_CHUNK, []).append(row)
    chunks: dict[str, Any] = {}
    jobs: list[Job] = []
    for number, members in sorted(grouped.items()):
        key = _chunk_key(members)
        path = data / f"m{number:05d}.js"
        entry = old_chunks.get(str(number))
        if entry and entry.get("key") == key and path.exists():
            chunks[str(number)] = entry
        else:
            chunks[str(number)] = {"key": key}
            jobs.append((path, number, members))
    finished = len(chunks) - len(jobs)
    if progress is not None:
        for done in range(1, finished + 1):
            progress(done, len(chunks))

    def written(number: int, entry: dict[str, Any]) -> None:
        nonlocal finished
        chunks[str(number)].update(entry)
        finished += 1
        if progress is not None:
            progress(finished, len(chunks))

    build_chunks(jobs, store, game, _build_match_chunk, written)  # on every core when there are many
    times = MoveTimes()
    levels: dict[str, set[str]] = {}
    for entry in chunks.values():  # in chunk order, whatever order they were written in
        times.merge(MoveTimes.from_json(entry["times"]))
        for agent, seen in entry["levels"].items():
            levels.setdefault(agent, set()).update(seen)
    for stale in set(old_chunks) - set(chunks):
        (data / f"m{int(stale):05d}.js").unlink(missing_ok=True)
    write_atomic(manifest_path, json.dumps({"version": BUILD_VERSION, "chunks": chunks}, separators=(",", ":")))
    return times, {agent: sorted(seen) for agent, seen in levels.items()}


def _build_match_chunk(path: Path, number: int, members: Sequence[MatchRow], store: Store,
                       game: Game | None) -> dict[str, Any]:
    """Write one match chunk; its manifest entry but the key (what it adds to the decision times and levels)."""
    times = MoveTimes()
    levels: dict[str, set[str]] = {}
    with _collector_paused():  # the pages are gone (_chunk_text returned) before the collector runs again
        text = _chunk_text(number, members, store, game, times, levels)
    write_atomic(path, text)
    return {"times": times.to_json(), "levels": {agent: sorted(seen) for agent, seen in levels.items()}}


def _chunk_text(number: int, members: Sequence[MatchRow], store: Store, game: Game | None, times: MoveTimes,
                levels: dict[str, set[str]]) -> str:
    """One match chunk's script; adds its matches' decision times to ``times`` and sandbox levels to ``levels``."""
    pages = []
    for row in members:
        record = store.record(row.id)
        times.add(record)
        for seat in record.get("seats", []):
            level = f"{seat.get('isolation', '?')}/{seat.get('sandbox', '?')}"
            levels.setdefault(str(seat.get("agent")), set()).add(level)
        # Each page written as JSON as soon as it is made, and freed: a chunk's memory stays one page's, and
        # warm in the cache (a sixteenth less time than keeping the hundred pages to write them together).
        pages.append(b'"%d":%b' % (row.idx, _json(match_page(game, record))))
    return chunk_script("m", number, _compressed(b"{" + b",".join(pages) + b"}"))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a chunk is built, on again after (if it was on).

    A match's page is some 10^3 small lists, tuples and strings made in a few hundred microseconds, each
    counted towards the collector's thresholds, so it would run again and again over young objects that are
    all about to be freed (a twentieth of the build's time; when a chunk kept its hundred pages until it was
    written, its full collections over them cost as much as the replays).  They hold no cycles (a game state
    that did is collected once the collector is on again), so nothing is kept longer than the chunk's build.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def write_list_chunks(folder: Path, rows: Sequence[MatchRow], agents: Sequence[str]) -> list[dict[str, Any]]:
    """Write the match list in chunks of ``LIST_CHUNK`` rows; return each chunk's size and matches per agent.

    The list page uses the counts to find, for a filter, which chunks hold the page it shows.
    """
    data = folder / DATA_FOLDER
    data.mkdir(parents=True, exist_ok=True)
    index = {agent: i for i, agent in enumerate(agents)}
    summary = []
    number = 0
    for number, start in enumerate(range(0, len(rows), LIST_CHUNK)):
        part = rows[start:start + LIST_CHUNK]
        counts: dict[int, int] = {}
        for row in part:
            for agent in set(row.agents):
                counts[index[agent]] = counts.get(index[agent], 0) + 1
        write_atomic(data / f"l{number:05d}.js",
               chunk_script("l", number, json.dumps([list_row(row, index) for row in part], separators=(",", ":"))))
        summary.append({"rows": len(part), "agents": {str(a): n for a, n in sorted(counts.items())}})
    for stale in data.glob("l*.js"):  # chunks past the end, from a larger build
        if stale.stem[1:].isdigit() and int(stale.stem[1:]) >= len(summary):
            stale.unlink()
    return summary


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` through a temporary file, so that a reader never sees half a chunk or page."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def agents_in(rows: Iterable[MatchRow]) -> list[str]:
    """Every agent that played, sorted."""
    return sorted({agent for row in rows for agent in row.agents})
