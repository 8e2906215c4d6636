"""The referee's side of a seat's log (arena.referee.seat_log): which path it accepts from a zygote, which file
it reads, and the text it keeps."""

from __future__ import annotations

import os
from pathlib import Path

from arena.referee.seat_log import CUT_MARK, KEPT_BYTES, keep, locate, safe_text


def test_a_log_path_is_taken_only_directly_inside_a_seat_folder_of_the_zygotes_root(tmp_path: Path) -> None:
    root = str(tmp_path)
    good = f"{root}/seat-abc/stderr.log"
    assert locate({"log": good}, 1234, root) == f"/proc/1234/root{good}"
    for bad in (f"{root}/stderr.log", f"{root}/seat-abc/deeper/stderr.log", f"{root}/seat-abc/other.log",
                f"{root}/seat-abc/../seat-def/stderr.log", "/etc/seat/stderr.log", 7, None):
        assert locate({"log": bad}, 1234, root) is None, bad
    assert locate({"log": good}, None, root) is None and locate({"log": good}, 1234, None) is None


def test_only_a_regular_file_with_one_link_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("the referee's secret\n")
    link = tmp_path / "symlinked.log"
    link.symlink_to(secret)
    hard = tmp_path / "hard.log"
    os.link(secret, hard)
    fifo = tmp_path / "fifo.log"
    os.mkfifo(fifo)
    for path in (link, hard, fifo, tmp_path, tmp_path / "missing.log"):
        assert keep(str(path)) == "", path  # a FIFO is not waited on either
    plain = tmp_path / "plain.log"
    plain.write_text("hello\n")
    assert keep(str(plain)) == "hello\n" and keep(None) == ""


def test_the_kept_text_is_the_end_with_controls_written_out(tmp_path: Path) -> None:
    assert safe_text("a\x1b[2Jb\r\n\tc\u202e\x00".encode() + b"\xff", 100) == "a\\x1b[2Jb\\r\n\tc\\u202e\\x00\ufffd"
    log = tmp_path / "stderr.log"
    log.write_bytes(b"first line\n" + b"z" * (2 * KEPT_BYTES) + b"\nlast line\n")
    kept = keep(str(log))
    assert kept == CUT_MARK + "last line\n"  # the cut line goes whole, not half of it
    log.write_bytes(b"y" * (2 * KEPT_BYTES))
    assert keep(str(log)) == CUT_MARK + "y" * KEPT_BYTES  # one endless line: its end
