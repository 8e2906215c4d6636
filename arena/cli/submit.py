"""``arena submit URL FILE``: upload an agent to a competition served by ``arena serve`` (docs/serve.md)."""

from __future__ import annotations

import argparse
import os
import re
import time
from pathlib import Path
from typing import Any

from arena.cli.common import CliError, add_command, print_json
from arena.cli.numbers import seconds
from arena.cli.stopping import say

TOKEN_ENV = "ARENA_TOKEN"
FINAL = ("accepted", "rejected")
PROGRESS_SECONDS = 30.0
"""While it waits, how often ``--wait`` says the check is still under way (on stderr)."""


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena submit``."""
    parser = add_command(
        subparsers, "submit", help="upload an agent to a served competition and follow its check",
        description=(
            "Upload FILE (a .py drop-in, a wheel, or a .zip or .tar.gz of one package folder or of one agent "
            "program's folder with its arena-agent.toml) to the competition at URL as a new version of your "
            "agent; it must register exactly one agent, which plays the competition's game. The token comes "
            f"from ${TOKEN_ENV} or --token-file, never from the command line (where other users of the machine "
            "could read it). With --wait, follow its check until it is accepted or rejected.\n\nExit status: 0 "
            "accepted (or queued without --wait), 1 refused or rejected, 2 a usage error."
        ),
        examples=(
            "ARENA_TOKEN=$(cat ~/.arena-token) arena submit https://arena.example.org my_agent.py --wait",
            "arena submit http://127.0.0.1:8000 dist/my_agent-1.0-py3-none-any.whl --token-file ~/.arena-token",
        ),
    )
    parser.add_argument("url", metavar="URL", help="the competition's address")
    parser.add_argument("file", metavar="FILE", type=Path, help="the agent to upload")
    parser.add_argument("--token-file", type=Path, metavar="FILE", help=f"read the token from FILE (else ${TOKEN_ENV})")
    parser.add_argument("--token", action=_RefuseToken, help=argparse.SUPPRESS)
    parser.add_argument("--wait", action="store_true", help="wait for the check's outcome")
    parser.add_argument("--timeout", type=seconds(positive=True), default=900.0, metavar="S",
                        help="most seconds to wait (900)")
    parser.add_argument("--json", action="store_true", help="print the upload as JSON")
    parser.set_defaults(run=run)


class _RefuseToken(argparse.Action):
    """``--token X``: refused with the two ways that work, without repeating the token."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        parser.error(f"a token is never taken from the command line, where other users of the machine can read "
                     f"it: set ${TOKEN_ENV} or pass --token-file FILE")


TOKEN_FILE_MAX = 4096
"""Most bytes read from a token file: a token is about 50 characters, and a larger file is another file."""
TOKEN_CHARACTERS = re.compile(r"[A-Za-z0-9._~+/=-]+")
"""What a token may hold (``NAME.RANDOM``, the random part URL-safe base64): it travels in an HTTP header."""


def _token(args: argparse.Namespace) -> str:
    """The token, from --token-file or $ARENA_TOKEN; ``CliError`` naming where it came from and what is wrong with
    it (never repeating it: it is a secret, and the terminal's scrollback keeps what is printed)."""
    if args.token_file is not None:
        where = str(args.token_file)
        try:
            with args.token_file.open("rb") as stream:
                data = stream.read(TOKEN_FILE_MAX + 1)
        except OSError as error:
            raise CliError(f"{where}: cannot read the token: {error.strerror or error}", status=1) from None
        if len(data) > TOKEN_FILE_MAX:
            raise CliError(f"{where}: not a token file: larger than {TOKEN_FILE_MAX} bytes (a token is one line of "
                           "about 50 characters)")
        token = _decoded(where, data)
    else:
        where = f"${TOKEN_ENV}"
        token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        raise CliError(f"no token: set ${TOKEN_ENV} or pass --token-file FILE (the organiser gave you the token)")
    problem = _token_problem(token)
    if problem is not None:
        raise CliError(f"{where}: not a token: {problem}; it should hold only the token the organiser gave you, "
                       "e.g. alice.xxxx (ASCII letters, digits and . _ -)")
    return token


def _decoded(where: str, data: bytes) -> str:
    """A token file's text, stripped; ``CliError`` for a byte-order mark, a binary file or text not UTF-8."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        raise CliError(f"{where}: not a token: the file starts with a byte-order mark (an editor's 'Unicode' or "
                       "'UTF-8 with BOM'); save it as plain text")
    if b"\0" in data:
        raise CliError(f"{where}: not a token: the file is binary (it holds a NUL byte); it should hold only the "
                       "token the organiser gave you")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError as error:
        raise CliError(f"{where}: not a token: byte {error.start} is not UTF-8 text; it should hold only the token "
                       "the organiser gave you") from None


def _token_problem(token: str) -> str | None:
    """What is wrong with ``token``, in words that do not repeat it, or None."""
    if TOKEN_CHARACTERS.fullmatch(token):
        return None
    for position, character in enumerate(token):
        if not TOKEN_CHARACTERS.fullmatch(character):
            if not character.isascii():
                kind = f"a non-ASCII character (U+{ord(character):04X})"
            elif character.isspace():
                kind = "a line break" if character in "\r\n" else "a space"
            else:
                kind = f"the character {character!r}" if character.isprintable() else \
                    f"a control character ({character!r})"
            return f"{kind} at position {position + 1}"
    return None


def _detail(response: Any) -> str:
    try:
        detail = response.json().get("detail")
    except ValueError:
        detail = None
    return str(detail) if detail else f"HTTP {response.status_code}"


def run(args: argparse.Namespace) -> int:
    """Upload, then (``--wait``) poll until the check is done."""
    try:
        import httpx
    except ImportError:
        raise CliError("'arena submit' needs httpx, in the serve extra: pip install -e '.[serve]' in arena's folder",
                       status=1) from None
    token = _token(args)
    if not args.file.is_file():
        raise CliError(f"{args.file}: no such file")  # a wrong request, as a missing config is
    base = args.url.rstrip("/")
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            with args.file.open("rb") as stream:
                response = client.post("/api/uploads", files={"file": (args.file.name, stream)})
            if response.status_code != 202:
                raise CliError(f"{args.url}: upload refused: {_detail(response)}", status=1)
            upload = response.json()
            page = f"{base}/me/uploads/{upload['id']}"
            started = time.monotonic()
            deadline = started + args.timeout
            said: tuple[str, float] | None = None  # the state last said, and when
            while args.wait and upload["state"] not in FINAL:
                now = time.monotonic()
                if said is None or said[0] != upload["state"] or now - said[1] >= PROGRESS_SECONDS:
                    # A check can take minutes (up to the competition's check_seconds): say it is under way.
                    say(f"upload {upload['id']}: {upload['state']} ({now - started:.0f} s)")
                    said = (upload["state"], now)
                if now > deadline:
                    raise CliError(f"upload {upload['id']} is still {upload['state']} after {args.timeout:g} s; "
                                   f"its outcome will be on {page}", status=1)
                time.sleep(1.0)
                response = client.get(f"/api/uploads/{upload['id']}")
                if response.status_code != 200:
                    raise CliError(f"{args.url}: {_detail(response)}", status=1)
                upload = response.json()
    except httpx.ConnectError as error:  # the usual first-time slip: a wrong port, or the server not started
        raise CliError(f"{args.url}: {error}; is 'arena serve' running there, at that port?", status=1) from None
    except httpx.HTTPError as error:
        raise CliError(f"{args.url}: {error}", status=1) from None
    if args.json:
        print_json(upload)
    else:
        reason = f": {upload['reason']}" if upload.get("reason") else ""
        print(f"upload {upload['id']} ({upload['filename']}, sha256 {upload['sha256'][:12]}): "
              f"{upload['state']}{reason}")
        if upload["state"] in FINAL:
            print(f"the whole report: {page} (logged in with your token), or {base}/api/uploads/{upload['id']}")
    return 1 if upload["state"] == "rejected" else 0
