"""Uploaded files, stored once by content hash and never changed: ``blobs/<sha256>``.

A file is written under a temporary name, flushed to disk and renamed into place before its upload is
recorded in the database, so a recorded upload always has its whole file, and a server killed mid-write
leaves at most a temporary file (removed at the next start).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

BLOBS = "blobs"


def blob_path(folder: Path, sha256: str) -> Path:
    """Where the upload of content hash ``sha256`` is kept."""
    return folder / BLOBS / sha256


def store_blob(folder: Path, data: bytes) -> str:
    """Store ``data`` (once: the same bytes are the same file); its SHA-256 in hex."""
    digest = hashlib.sha256(data).hexdigest()
    target = blob_path(folder, digest)
    if target.exists():
        return digest
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{digest}.{os.getpid()}.{id(data)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, target)
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)  # the rename itself survives a crash
    finally:
        os.close(directory)
    return digest


def remove_partial(folder: Path) -> None:
    """Remove the temporary files of writes a killed server left."""
    for leftover in (folder / BLOBS).glob(".*.tmp") if (folder / BLOBS).is_dir() else ():
        leftover.unlink(missing_ok=True)
