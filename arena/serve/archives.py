"""Uploads as data: sizes, counts and names checked before anything is unpacked, then one plugin folder.

Accepted forms (docs/serve.md): a single-file drop-in (``.py``), and a package as a wheel (``.whl``), a
zip (``.zip``) or a source archive (``.tar.gz``/``.tgz``).  An archive must hold exactly one package
folder (one ``__init__.py`` at its top) whose ``__init__.py`` registers the agent, as a package folder
dropped into ``plugins/`` does (docs/writing-agents.md), or exactly one agent program's folder (its
``arena-agent.toml`` at its top: any language, built by arena in a sandbox of its own, docs/protocol.md);
metadata folders (``*.dist-info``, ``*.egg-info``) and build files beside a package are ignored.
Everything is read in memory within the limits:
a compressed stream is decompressed only up to the unpacked limit (so an archive bomb stops there), a
member's declared size is never trusted (its bytes are counted as read), and a link, a device, an
absolute path, a ``..`` or a name that is not plain text is refused.  In a Python package, compiled code
and sources that need a build (C, Cython) are refused: it is pure Python, with only the arena's
environment beside it.  Files are written without execute permission: a program's command names an
interpreter or what its build makes.
"""

from __future__ import annotations

import gzip
import io
import posixpath
import re
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.program import MANIFEST_NAME
from arena.serve.config import ServeLimits

KINDS = {".py": "file", ".whl": "wheel", ".zip": "zip", ".tar.gz": "tar", ".tgz": "tar"}
"""File name endings accepted, and the kind each is."""

NEEDS_BUILD = (".c", ".cc", ".cpp", ".cxx", ".h", ".pyx", ".pxd", ".so", ".pyd", ".dylib", ".dll")
METADATA = re.compile(r"^[^/]+\.(dist-info|egg-info|data)(/|$)")
MEMBER_NAME = re.compile(r"^[A-Za-z0-9_.+@=-]+$")
"""One component of a member's path: plain characters only (no spaces, quotes, control characters)."""
NAME_MAX = 200
FILENAME_MAX = 100


class UploadError(ValueError):
    """An upload refused before it is stored; one line saying what was wrong."""


@dataclass(frozen=True, slots=True)
class Unpacked:
    """An upload's plugin: a single file, or the files of one package folder (paths relative to it)."""

    kind: str  # one of KINDS' values
    files: dict[str, bytes]  # "plugin.py" for a single file; else paths inside the package folder

    def write(self, folder: Path, plugin: str) -> Path:
        """Write the plugin into ``folder`` under the name ``plugin``; its path (a file or a folder)."""
        if self.kind == "file":
            target = folder / f"{plugin}.py"
            target.write_bytes(self.files["plugin.py"])
            return target
        root = folder / plugin
        for name, data in sorted(self.files.items()):
            path = root.joinpath(*PurePosixPath(name).parts)  # parts checked by _member_path: no .., no /
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return root


def kind_of(filename: str) -> str:
    """The kind of upload ``filename`` names; ``UploadError`` listing the accepted endings otherwise."""
    lower = filename.lower()
    for ending, kind in sorted(KINDS.items(), key=lambda item: -len(item[0])):
        if lower.endswith(ending):
            return kind
    raise UploadError(f"{safe_filename(filename)!r}: not an accepted upload; send a .py drop-in, a wheel (.whl), "
                      "or a .zip or .tar.gz of a package or of an agent program")


def safe_filename(filename: str) -> str:
    """The upload's name as it may be shown and stored: its last component, printable, bounded."""
    name = posixpath.basename(filename.replace("\\", "/"))
    return "".join(char if char.isprintable() else "?" for char in name)[:FILENAME_MAX] or "upload"


def read_upload(filename: str, data: bytes, limits: ServeLimits) -> Unpacked:
    """Check and read upload ``data`` (sent as ``filename``) within ``limits``; ``UploadError`` if refused."""
    if len(data) > limits.upload_bytes:
        raise UploadError(f"upload of {len(data)} bytes: the limit is {limits.upload_bytes} bytes")
    kind = kind_of(filename)
    if kind == "file":
        if len(data) > limits.unpacked_bytes:
            raise UploadError(f"{len(data)} bytes: the limit unpacked is {limits.unpacked_bytes} bytes")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise UploadError("a .py drop-in must be UTF-8 text") from None
        return Unpacked(kind, {"plugin.py": data})
    members = _zip_members(data, limits) if kind in ("wheel", "zip") else _tar_members(data, limits)
    return Unpacked(kind, _package(members))


def _member_path(name: str) -> str:
    """A member's path, checked: relative, plain components, no ``..``; ``UploadError`` otherwise."""
    if len(name) > NAME_MAX:
        raise UploadError(f"archive member name of {len(name)} characters: at most {NAME_MAX}")
    shown = name.encode("unicode_escape").decode()[:80]
    if name.startswith("/") or "\\" in name:
        raise UploadError(f"archive member {shown!r}: an absolute path or a backslash; paths must stay inside the "
                          "upload")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or any(part == ".." for part in parts):
        raise UploadError(f"archive member {shown!r}: the path leaves the upload's folder")
    if not all(MEMBER_NAME.fullmatch(part) for part in parts):
        raise UploadError(f"archive member {shown!r}: use letters, digits and _ . + - @ = in file names")
    return "/".join(parts)


def _zip_members(data: bytes, limits: ServeLimits) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise UploadError(f"not a readable zip archive: {error}") from None
    if len(infos) > limits.files:
        raise UploadError(f"archive of {len(infos)} members: the limit is {limits.files} files")
    declared = sum(info.file_size for info in infos)
    if declared > limits.unpacked_bytes:
        raise UploadError(f"archive unpacks to {declared} bytes: the limit is {limits.unpacked_bytes} bytes")
    members: dict[str, bytes] = {}
    budget = limits.unpacked_bytes
    for info in infos:
        path = _member_path(info.filename)
        mode = info.external_attr >> 16
        if info.is_dir():
            continue
        if mode and (mode & 0o170000) not in (0, 0o100000):  # a symbolic link or a special file, by its Unix mode
            raise UploadError(f"archive member {path!r}: links and special files are refused")
        try:
            with archive.open(info) as stream:
                content = stream.read(budget + 1)  # the declared size is not trusted: count what comes out
        except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, zlib.error, EOFError) as error:
            raise UploadError(f"archive member {path!r} cannot be read: {error}") from None
        budget -= len(content)
        if budget < 0:
            raise UploadError(f"archive unpacks to more than {limits.unpacked_bytes} bytes (the limit)")
        if path in members:
            raise UploadError(f"archive member {path!r} appears twice")
        members[path] = content
    return members


def _tar_members(data: bytes, limits: ServeLimits) -> dict[str, bytes]:
    # Decompress at most the unpacked limit plus the tar headers' share: a gzip bomb stops here, unread.
    ceiling = limits.unpacked_bytes + 1024 * (limits.files + 2)
    try:
        raw = gzip.GzipFile(fileobj=io.BytesIO(data)).read(ceiling + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise UploadError(f"not a readable .tar.gz: {error}") from None
    if len(raw) > ceiling:
        raise UploadError(f"archive unpacks to more than {limits.unpacked_bytes} bytes (the limit)")
    members: dict[str, bytes] = {}
    budget = limits.unpacked_bytes
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            for count, info in enumerate(archive, start=1):
                if count > limits.files:
                    raise UploadError(f"archive of more than {limits.files} members: the limit is {limits.files} "
                                      "files")
                path = _member_path(info.name)
                if info.isdir():
                    continue
                if not info.isfile():
                    raise UploadError(f"archive member {path!r}: links and special files are refused")
                budget -= info.size
                if budget < 0:
                    raise UploadError(f"archive unpacks to more than {limits.unpacked_bytes} bytes (the limit)")
                stream = archive.extractfile(info)
                if stream is None:
                    raise UploadError(f"archive member {path!r} cannot be read")
                if path in members:
                    raise UploadError(f"archive member {path!r} appears twice")
                members[path] = stream.read(info.size)
    except tarfile.TarError as error:
        raise UploadError(f"not a readable .tar.gz: {error}") from None
    return members


def _package(members: dict[str, bytes]) -> dict[str, bytes]:
    """The files of the archive's one package folder, or one agent program's folder (its ``arena-agent.toml``
    beside them), relative to it; ``UploadError`` otherwise."""
    code = {path: data for path, data in members.items() if not METADATA.match(path)}
    programs = sorted(posixpath.dirname(path) for path in code if posixpath.basename(path) == MANIFEST_NAME)
    if programs:  # an agent program in any language: arena builds it in its own sandbox (docs/protocol.md)
        shallowest = [folder for folder in programs if not any(folder.startswith(other + "/") for other in programs
                                                               if other != folder)]
        if len(shallowest) != 1 or not shallowest[0]:
            raise UploadError(f"an archive must hold exactly one program folder (with its {MANIFEST_NAME}) or one "
                              f"package folder; found {', '.join(shallowest[:5]) or 'a manifest at its top'}: put "
                              "the program in a folder of its own")
        root = shallowest[0]
    else:
        for path in code:
            if path.lower().endswith(NEEDS_BUILD):
                raise UploadError(f"{path!r}: compiled code or a source that needs a build; a Python package must "
                                  "be pure Python (the arena's environment offers numpy and scipy), a program "
                                  f"brings its {MANIFEST_NAME} with its build command")
        inits = {posixpath.dirname(path) for path in code if posixpath.basename(path) == "__init__.py"}
        roots = sorted(folder for folder in inits if folder and posixpath.dirname(folder) not in inits)
        if len(roots) != 1:
            found = ", ".join(roots[:5]) or "none"
            raise UploadError(f"an archive must hold exactly one package folder (with an __init__.py that registers "
                              f"the agent) or one program folder (with its {MANIFEST_NAME}); found {len(roots)}: "
                              f"{found}")
        root = roots[0]
    prefix = root + "/"
    return {path.removeprefix(prefix): data for path, data in code.items() if path.startswith(prefix)}
