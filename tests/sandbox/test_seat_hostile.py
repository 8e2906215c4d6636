"""Hostile actions inside one seat (confine + spawn_seat + place, as root on a full-sandbox machine): each fails.

Each test runs a body in a real seat and asserts on what the body saw (an
error, not a result) and on what the referee saw after reap.
"""

from __future__ import annotations

import array
import ctypes
import errno
import fcntl
import importlib
import json
import os
import resource
import shutil
import signal
import socket
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sandbox_helpers import in_seat, need, probe_all, run_seat, wait_for

from arena import sandbox
from arena.sandbox import Policy, SeatBox


@pytest.fixture
def root(tmp_path: Path) -> str:
    """The zygote's temp_root, made by the referee as the host would."""
    folder = tmp_path / "sandbox"
    folder.mkdir()
    return str(folder)


def refused(result: str) -> bool:
    """Whether an attempt failed with an error (PermissionError, ConnectionRefusedError, ...)."""
    return not result.startswith("ok")


def test_files_outside_read_paths_cannot_be_read(root: str, tmp_path: Path) -> None:
    need()
    store = tmp_path / "leaderboards" / "t" / "results.sqlite"
    store.parent.mkdir(parents=True)
    store.write_bytes(b"SQLite format 3\0secret results")
    cwd = os.getcwd()
    run = run_seat(lambda out: probe_all(out, {
        "store": lambda: open(store, "rb").read(),
        "leaderboards": lambda: os.listdir(tmp_path / "leaderboards"),
        "cwd": lambda: os.listdir(cwd),
        "cwd_relative": lambda: os.listdir(os.path.join(cwd, "tests")),
        "etc_passwd": lambda: open("/etc/passwd").read(),
        "arena_source": lambda: len(Path(sandbox.__file__).read_text()),  # a read path: must still work
    }), root)
    results = run.results()
    assert run.level == "full" and run.box is not None and run.box.level == "full"
    for name in ("store", "leaderboards", "cwd", "cwd_relative", "etc_passwd"):
        assert refused(results[name]), f"{name}: {results[name]}"
    assert results["arena_source"].startswith("ok"), results["arena_source"]


def test_writes_only_in_its_own_folder_which_reap_removes(root: str, tmp_path: Path) -> None:
    need()
    seen: dict[str, str] = {}

    def body(out: int) -> int:
        mine = os.environ["TMPDIR"]
        status = probe_all(out, {
            "own": lambda: Path(mine, "notes.txt").write_text("kept for later"),
            "cwd_is_own": lambda: os.getcwd() == mine,
            "sibling": lambda: Path(mine).parent.joinpath("planted").write_text("x"),
            "outside": lambda: (tmp_path / "planted").write_text("x"),
            "tmp": lambda: Path("/tmp/arena-planted").write_text("x"),
            "fifo": lambda: os.mkfifo(os.path.join(mine, "rendezvous")),
            "unix_socket": lambda: socket.socket(socket.AF_UNIX).bind(os.path.join(mine, "rendezvous.sock")),
        })
        wait_for(lambda: Path(mine, "looked").exists())  # alive until the referee has looked in the folder
        return status

    def during(box: SeatBox) -> None:
        inside = in_seat(box, "notes.txt")
        seen["temp_dir"] = box.temp_dir
        seen["existed"] = str(wait_for(inside.exists))
        seen["on_host_disk"] = str(Path(box.temp_dir, "notes.txt").exists())
        in_seat(box, "looked").write_text("")

    results = run_seat(body, root, during=during).results()
    assert results["own"] == "ok 14" and results["cwd_is_own"] == "ok True"
    for name in ("sibling", "outside", "tmp", "fifo", "unix_socket"):
        assert refused(results[name]), f"{name}: {results[name]}"
    assert not (tmp_path / "planted").exists() and not Path("/tmp/arena-planted").exists()
    assert seen["existed"] == "True" and seen["on_host_disk"] == "False"  # in the sandbox's own memory-backed folder
    assert not os.path.exists(seen["temp_dir"]) and os.listdir(root) == [], "nothing of the seat's is left"


def test_a_seat_cannot_fill_the_disk(root: str) -> None:
    """The seat's folder is memory-backed and bounded: a 2 GiB file (a few milliseconds to allocate on a disk)
    fails at once, and nothing reaches the host's disk."""
    need()

    def fill(name: str, size: int) -> int:
        fd = os.open(os.path.join(os.environ["TMPDIR"], name), os.O_CREAT | os.O_WRONLY, 0o600)
        try:
            os.posix_fallocate(fd, 0, size)
        finally:
            os.close(fd)
        return size

    free = shutil.disk_usage(root).free
    results = run_seat(lambda out: probe_all(out, {
        "huge": lambda: fill("huge.bin", 2 << 30),
        "small": lambda: fill("small.bin", 1 << 20),  # an agent's own cache still works
    }), root, policy=Policy(sandbox.default_read_paths(), memory_mb=256)).results()
    assert results["huge"].startswith("OSError") and "No space left on device" in results["huge"], results["huge"]
    assert results["small"] == f"ok {1 << 20}"
    assert shutil.disk_usage(root).free > free - (64 << 20) and os.listdir(root) == []


def test_no_network_tcp_or_abstract_unix_socket(root: str) -> None:
    need(landlock_abi=6)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = f"\0arena-test-{os.getpid()}"
    abstract.bind(name)
    abstract.listen()
    try:
        results = run_seat(lambda out: probe_all(out, {
            "tcp": lambda: socket.create_connection(("127.0.0.1", port), timeout=2),
            "tcp_bind": lambda: socket.create_server(("127.0.0.1", 0)),
            "udp": lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port)),
            "abstract": lambda: socket.socket(socket.AF_UNIX).connect(name),
        }), root).results()
    finally:
        listener.close()
        abstract.close()
    for attempt in ("tcp", "tcp_bind", "udp", "abstract"):
        assert refused(results[attempt]), f"{attempt}: {results[attempt]}"


def test_cannot_see_signal_or_trace_the_referee(root: str) -> None:
    need(landlock_abi=6)
    me = os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)

    def ptrace_attach() -> int:
        if libc.ptrace(16, me, None, None) != 0:  # PTRACE_ATTACH
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        return 0

    results = run_seat(lambda out: probe_all(out, {
        "signal": lambda: os.kill(me, signal.SIGTERM),
        "signal_init": lambda: os.kill(1, signal.SIGKILL),
        "ptrace": ptrace_attach,
        "mem": lambda: open(f"/proc/{me}/mem", "rb").read(1),
        "proc_list": lambda: os.listdir("/proc"),
        "proc_status": lambda: open(f"/proc/{me}/status").read(),
        "own_pid": lambda: os.getpid(),
    }), root).results()
    for attempt in ("signal", "signal_init", "ptrace", "mem", "proc_list", "proc_status"):  # init: Landlock scope
        assert refused(results[attempt]), f"{attempt}: {results[attempt]}"
    assert results["own_pid"] == "ok 2", "the agent process is the second process of its own PID namespace"


def test_a_setsid_double_fork_dies_at_reap(root: str) -> None:
    need()

    def body(out: int) -> int:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:  # the grandchild keeps the output pipe open for as long as it lives
                while True:
                    time.sleep(1)
            os._exit(0)
        while True:  # the agent process never ends by itself either
            time.sleep(1)

    run = run_seat(body, root, kill_after=0.3)
    assert run.output == b"", "end of file on the pipe: no process of the seat survived reap"
    assert run.zygote_reap.get("signal") == signal.SIGKILL


def test_memory_is_bounded_for_the_whole_tree(root: str) -> None:
    need()
    policy = Policy(sandbox.default_read_paths(), memory_mb=64, label="memory")

    def body(out: int) -> int:
        children = []
        for _ in range(4):  # 4 x 40 MB: each under its own RLIMIT_AS, together far past 64 MB
            pid = os.fork()
            if pid == 0:
                block = bytearray(b"\1") * (40 << 20)
                time.sleep(1.0)  # hold the block while the others allocate theirs
                os.write(out, b"=")  # only a child that held its 40 MB to the end says so
                os._exit(len(block) & 0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        return 0

    run = run_seat(body, root, policy=policy)
    # Not "how many allocated": a child may finish allocating and be killed when the next one grows, so all
    # four can allocate in turn under the limit. None may keep its block alongside the others.
    assert run.output.count(b"=") < 4, "not every 40 MB child may live at once under 64 MB"
    assert run.referee_reap["memory_exceeded"] is True
    assert run.referee_reap["maxrss_kb"] <= 64 * 1024


def test_a_frozen_seat_makes_no_progress(root: str) -> None:
    need()
    counts: list[tuple[int, ...]] = []

    def body(out: int) -> int:
        folder = os.environ["TMPDIR"]
        if os.fork() == 0:
            spin(os.path.join(folder, "child"))
        spin(os.path.join(folder, "parent"))
        return 0

    def during(box: SeatBox) -> None:
        files = [in_seat(box, "parent"), in_seat(box, "child")]
        assert wait_for(lambda: all(read_count(f) > 0 for f in files))
        sandbox.freeze(box)
        counts.append(tuple(read_count(f) for f in files))
        time.sleep(0.3)  # room to make progress, if it could
        counts.append(tuple(read_count(f) for f in files))
        sandbox.thaw(box)
        assert wait_for(lambda: all(read_count(f) > c for f, c in zip(files, counts[-1])))
        counts.append(tuple(read_count(f) for f in files))

    run_seat(body, root, during=during, kill_after=0.0)
    frozen, later, thawed = counts
    assert frozen == later, "no process of a frozen seat may run"
    assert all(t > f for t, f in zip(thawed, later))


def spin(path: str) -> None:
    """Count as fast as possible into ``path`` (8 bytes, rewritten in place)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    count = 0
    while True:
        count += 1
        os.pwrite(fd, count.to_bytes(8, "little"), 0)


def read_count(path: Path) -> int:
    """The count ``spin`` last wrote (0 before it started)."""
    try:
        return int.from_bytes(path.read_bytes()[:8] or b"\0", "little")
    except OSError:
        return 0


def test_the_box_from_the_zygote_is_checked(root: str) -> None:
    need()
    policy = Policy(sandbox.default_read_paths(), memory_mb=64)
    lie = SeatBox(pid=os.getpid(), group=None, temp_dir=root, level="full")
    # Any pid but the real parent: pid 1 is the real parent of a run whose launcher exited (reparented).
    not_parent = 1 if os.getppid() != 1 else 2
    with pytest.raises(sandbox.SandboxError, match="not a seat of zygote"):
        sandbox.place(lie, policy, parent=not_parent, temp_root=root)
    with pytest.raises(sandbox.SandboxError, match="not the init of its own PID namespace"):
        sandbox.place(lie, policy, parent=os.getppid(), temp_root=root)
    with pytest.raises(sandbox.SandboxError, match="neither spawned nor placed"):
        sandbox.reap(lie)
    with pytest.raises(sandbox.SandboxError, match="neither spawned nor placed"):
        sandbox.freeze(lie)


def test_unix_sockets_in_shared_folders_are_out_of_sight(root: str, tmp_path: Path) -> None:
    need()
    folder = Path(tempfile.mkdtemp(prefix="arena-test-socket-", dir="/tmp"))  # as Ray keeps its sockets
    path = str(folder / "service.sock")
    service = socket.socket(socket.AF_UNIX)
    service.bind(path)
    os.chmod(path, 0o777)  # the file system would let anyone connect: only the sandbox stands in the way
    service.listen()
    try:
        results = run_seat(lambda out: probe_all(out, {
            "connect": lambda: socket.socket(socket.AF_UNIX).connect(path),
            "list_tmp": lambda: os.listdir("/tmp"),
            "run": lambda: os.listdir("/run"),
            "own_folder_still_there": lambda: os.path.isdir(os.environ["TMPDIR"]),
        }), root).results()
    finally:
        service.close()
        shutil.rmtree(folder)
    assert refused(results["connect"]), results["connect"]
    assert refused(results["list_tmp"]) and refused(results["run"])
    assert results["own_folder_still_there"] == "ok True"


def fork_until_refused(out: int) -> int:
    """Fork sleeping children until the kernel refuses; write how many were made (a fork bomb, bounded)."""
    made = 0
    try:
        while made < 1000:
            if os.fork() == 0:
                os.close(out)  # so that the output ends when the agent process does
                time.sleep(30)
                os._exit(0)
            made += 1
    except OSError:
        pass
    os.write(out, str(made).encode())
    return 0


LIBC = ctypes.CDLL(None, use_errno=True)


def raw_syscall(number: int, *args: object) -> int:
    """Make system call ``number`` through libc; ``OSError`` with its errno when it fails."""
    if LIBC.syscall(number, *args) < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return 0


def on_open_file(path: Path, operation: Callable[[int], object]) -> object:
    """``operation(fd)`` on ``path`` opened for reading, closed afterwards."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return operation(fd)
    finally:
        os.close(fd)


def test_no_file_metadata_keyring_or_lock_anywhere(root: str, tmp_path: Path) -> None:
    """What Landlock does not mediate: a seat may read a file but not mark it (a memory across matches, a note to
    a colluding seat, a rival's plugin locked out), nor keep a key in a kernel keyring, nor lock a file."""
    need()
    readable = tmp_path / "plugin" / "agent.py"  # a file the seat may read, as its plugin's own
    readable.parent.mkdir()
    readable.write_text("print('an agent')\n")
    before = os.stat(readable)
    policy = Policy((*sandbox.default_read_paths(), str(readable.parent)), memory_mb=256)

    def lock(operation: Callable[[int], object]) -> object:
        return on_open_file(readable, operation)

    def own(change: Callable[[str], object]) -> object:
        path = os.path.join(os.environ["TMPDIR"], "own.txt")
        Path(path).write_text("x")
        return change(path)

    results = run_seat(lambda out: probe_all(out, {
        "chmod": lambda: os.chmod(readable, 0o777),
        "utime": lambda: os.utime(readable, (0, 0)),
        "setxattr": lambda: os.setxattr(readable, "user.memory", b"the last deal"),
        "removexattr": lambda: os.removexattr(readable, "user.memory"),
        "chown": lambda: os.chown(readable, 0, 0),
        "own_file_chmod": lambda: own(lambda path: os.chmod(path, 0o600)),
        "own_file_xattr": lambda: own(lambda path: os.setxattr(path, "user.memory", b"x")),
        "flock": lambda: lock(lambda fd: fcntl.flock(fd, fcntl.LOCK_SH)),
        "posix_lock": lambda: lock(lambda fd: fcntl.lockf(fd, fcntl.LOCK_SH)),
        "add_key": lambda: raw_syscall(248 if os.uname().machine == "x86_64" else 217, b"user", b"memory",
                                   b"the last deal", 13, -3),
        "inode_flags": lambda: lock(lambda fd: fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0x40))),  # nodump
        "inode_version": lambda: lock(lambda fd: fcntl.ioctl(fd, 0x40087602, struct.pack("l", 0x1234567))),
        "file_setattr": lambda: raw_syscall(469, -100, bytes(readable), 0, 0, 0),
        "inotify": lambda: raw_syscall(294 if os.uname().machine == "x86_64" else 26, 0),
        "read": lambda: len(readable.read_bytes()) > 0,  # reading still works
        "fcntl_flags": lambda: lock(lambda fd: fcntl.fcntl(fd, fcntl.F_GETFD)) is not None,  # not a lock
    }), root, policy=policy).results()
    for name in ("chmod", "utime", "setxattr", "removexattr", "chown", "own_file_chmod", "own_file_xattr",
                 "add_key", "inode_flags", "inode_version", "file_setattr", "inotify"):
        assert results[name].startswith("PermissionError") or results[name].startswith("OSError [Errno 1]"), \
            f"{name}: {results[name]}"
    for name in ("flock", "posix_lock"):  # as on a file system without locks: lock libraries give up at once
        assert results[name].startswith("OSError [Errno 38]"), f"{name}: {results[name]}"
    assert results["read"] == "ok True" and results["fcntl_flags"] == "ok True"
    after = os.stat(readable)
    assert (after.st_mode, after.st_mtime_ns, after.st_uid) == (before.st_mode, before.st_mtime_ns, before.st_uid)
    flags = array.array("l", [0])
    with open(readable, "rb") as file:  # the inode flags as the seat found them (none set by it)
        fcntl.ioctl(file.fileno(), 0x80086601, flags)  # FS_IOC_GETFLAGS
    assert not flags[0] & 0x40
    assert "user.memory" not in os.listxattr(readable)


EXPECTED_CPUS = os.cpu_count()


def test_no_page_cache_store_free_space_or_netlink(root: str, tmp_path: Path) -> None:
    """A seat may read a library file, but not read or set which of its pages are cached (a memory from one
    rotation of a duplicate block to the next, or a channel to a colluding seat), nor read a file system's free
    space (its plugin's other seats move the shared temporary folder's), nor open a netlink socket
    (NETLINK_USERSOCK joins seats without any capability); malloc's own madvise still works."""
    need()
    readable = tmp_path / "plugin" / "data.bin"
    readable.parent.mkdir()
    readable.write_bytes(os.urandom(1 << 16))
    policy = Policy((*sandbox.default_read_paths(), str(readable.parent)), memory_mb=256)
    x86 = os.uname().machine == "x86_64"

    def mapped(advice: int | None) -> object:
        """madvise ``advice`` over a shared mapping of the file, or mincore (None) to read its residency."""
        fd = os.open(readable, os.O_RDONLY)
        LIBC.mmap.restype = ctypes.c_void_p
        address = ctypes.c_void_p(LIBC.mmap(None, 1 << 16, 1, 1, fd, 0))  # PROT_READ, MAP_SHARED
        try:
            if advice is None:
                return raw_syscall(27 if x86 else 232, address, 1 << 16, ctypes.create_string_buffer(16))
            return raw_syscall(28 if x86 else 233, address, 1 << 16, advice)
        finally:
            LIBC.munmap(address, 1 << 16)
            os.close(fd)

    def opened(operation: Callable[[int], object]) -> object:
        return on_open_file(readable, operation)

    results = run_seat(lambda out: probe_all(out, {
        "mincore": lambda: mapped(None),
        "fadvise": lambda: opened(lambda fd: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)),
        "readahead": lambda: opened(lambda fd: raw_syscall(187 if x86 else 213, fd, 0, 4096)),
        "nowait_read": lambda: opened(lambda fd: os.preadv(fd, [bytearray(4096)], 0, os.RWF_NOWAIT)),
        "cachestat": lambda: opened(lambda fd: raw_syscall(451, fd, bytes(16), bytes(64), 0)),
        "pageout": lambda: mapped(21),  # MADV_PAGEOUT
        "cold": lambda: mapped(20),  # MADV_COLD
        "netlink": lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2),  # NETLINK_USERSOCK
        "willneed": lambda: mapped(3),  # MADV_WILLNEED: a hint that loads, like reading, is allowed
        "plain_read": lambda: opened(lambda fd: os.preadv(fd, [bytearray(4096)], 0)),
        "unix_pair": lambda: len(socket.socketpair()),
        "free_space": lambda: os.statvfs(os.environ["TMPDIR"]),  # shared by the seats of one plugin
        "cpu_count": lambda: os.cpu_count() == EXPECTED_CPUS and len(os.sched_getaffinity(0)) > 0,
        "cpu_idle": lambda: Path("/sys/devices/system/cpu/cpu0/cpuidle").is_dir() and
        os.listdir("/sys/devices/system/cpu/cpu0/cpuidle"),  # host-wide counters: not readable
        "free_space_fd": lambda: opened(os.fstatvfs),
    }), root, policy=policy).results()
    for name in ("mincore", "fadvise", "readahead", "cachestat", "free_space", "free_space_fd"):
        assert results[name].startswith("OSError [Errno 38]"), f"{name}: {results[name]}"  # ENOSYS
    # glibc answers a preadv2 with flags that the kernel refused with ENOSYS as not supported (EOPNOTSUPP)
    assert results["nowait_read"].startswith(("OSError [Errno 38]", "OSError [Errno 95]")), results["nowait_read"]
    for name in ("pageout", "cold"):
        assert results[name].startswith("PermissionError"), f"{name}: {results[name]}"
    assert results["netlink"].startswith("OSError [Errno 97]"), results["netlink"]  # EAFNOSUPPORT
    assert results["cpu_count"] == "ok True" and results["cpu_idle"] in ("ok False", "PermissionError [Errno 13] "
                                                                         "Permission denied: "
                                                                         "'/sys/devices/system/cpu/cpu0/cpuidle'")
    assert results["willneed"] == "ok 0" and results["plain_read"] == "ok 4096" and results["unix_pair"] == "ok 2"


def open_until_refused(out: int) -> int:
    """Open /dev/null until the kernel refuses (at most 5000); write how many, and the bound, as JSON."""
    opened: list[int] = []
    try:
        while len(opened) < 5000:
            opened.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as error:
        refusal = error.errno
    else:
        refusal = 0
    os.write(out, json.dumps({"opened": len(opened), "errno": refusal,
                              "limit": resource.getrlimit(resource.RLIMIT_NOFILE)}).encode())
    return 0


def test_an_agent_process_holds_at_most_max_open_files(root: str) -> None:
    """The kernel's file table is the host's, and not charged to a seat's memory: each process is bounded."""
    need()
    found = json.loads(run_seat(open_until_refused, root).output)
    assert found["limit"] == [sandbox.MAX_OPEN_FILES, sandbox.MAX_OPEN_FILES]
    assert found["errno"] == errno.EMFILE and found["opened"] < sandbox.MAX_OPEN_FILES


def test_a_fork_bomb_stops_at_max_processes(root: str) -> None:
    need()
    policy = Policy(sandbox.default_read_paths(), memory_mb=256, max_processes=16)
    run = run_seat(fork_until_refused, root, policy=policy)
    made = int(run.output)
    assert 0 < made < 16, "the seat's processes (init and agent included) stay under max_processes"


def test_python_still_works_inside(root: str) -> None:
    need()

    def fresh_import(name: str) -> str:
        for loaded in [module for module in sys.modules if module == name or module.startswith(name + ".")]:
            del sys.modules[loaded]  # read from disk again, inside the sandbox
        return importlib.import_module(name).__name__

    results = run_seat(lambda out: probe_all(out, {
        "stdlib": lambda: fresh_import("colorsys"),
        "site_packages": lambda: fresh_import("trueskill"),
        "arena_editable": lambda: fresh_import("arena.records"),
        "arena_agents": lambda: fresh_import("arena_agents"),
        "urandom": lambda: len(open("/dev/urandom", "rb").read(8)),
        "devnull": lambda: open("/dev/null", "w").write("x"),
        "tempfile": lambda: tempfile.NamedTemporaryFile().name.startswith(os.environ["TMPDIR"]),
    }), root).results()
    assert results == {"stdlib": "ok 'colorsys'", "site_packages": "ok 'trueskill'",
                       "arena_editable": "ok 'arena.records'", "arena_agents": "ok 'arena_agents'",
                       "urandom": "ok 8", "devnull": "ok 1", "tempfile": "ok True"}


def test_place_sets_the_groups_limits(root: str) -> None:
    capabilities = need()
    policy = Policy(sandbox.default_read_paths(), memory_mb=96, cpus=0.5, max_processes=12, label="limits")
    seen: dict[str, str] = {}

    def during(box: SeatBox) -> None:
        assert box.group is not None
        for folder in box.group.split(os.pathsep):
            for name in ("memory.limit_in_bytes", "memory.max", "cpu.cfs_quota_us", "cpu.max", "pids.max"):
                if os.path.exists(os.path.join(folder, name)):
                    seen[name] = Path(folder, name).read_text().strip()
            seen.setdefault("members", "")
            seen["members"] += Path(folder, "cgroup.procs").read_text()

    run_seat(lambda out: time.sleep(30) or 0, root, policy=policy, during=during, kill_after=0.0)  # type: ignore[func-returns-value]
    memory = seen.get("memory.limit_in_bytes") or seen.get("memory.max")
    assert memory == str(96 << 20)
    if capabilities.cpu_limit:
        assert seen.get("cpu.cfs_quota_us") == "50000" or seen.get("cpu.max") == "50000 100000"
    if "pids.max" in seen:
        assert seen["pids.max"] == "12"
    assert seen["members"].strip(), "the seat's init is in its groups"


def test_without_namespaces_or_landlock_a_seat_still_runs_and_is_reaped(root: str,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel with neither (simulated): level "none", a plain fork, the process group as the seat."""
    need()
    bare = sandbox.Capabilities(user_namespaces=False, pid_namespaces=False, mount_namespaces=False,
                                network_namespaces=False, landlock_abi=0, cgroups="none", memory_limit=False,
                                freezer=False, cpu_limit=False, root=False)
    monkeypatch.setattr(sandbox.confinement, "probe", lambda: bare)
    monkeypatch.setattr(sandbox.cgroups, "find", lambda: sandbox.cgroups.Hierarchy("none", {}))  # no groups either
    counts: list[int] = []

    def body(out: int) -> int:
        os.write(out, str(os.getpid() != 2).encode())  # no PID namespace of its own
        spin(os.path.join(os.environ["TMPDIR"], "count"))
        return 0

    def during(box: SeatBox) -> None:
        path = Path(box.temp_dir, "count")
        assert box.level == "none" and box.group is None
        assert wait_for(lambda: read_count(path) > 0)
        sandbox.freeze(box)
        counts.append(read_count(path))
        time.sleep(0.2)  # room to make progress, if it could
        counts.append(read_count(path))
        sandbox.thaw(box)
        assert wait_for(lambda: read_count(path) > counts[-1])

    run = run_seat(body, root, during=during, kill_after=0.0, require="none")
    assert not run.zygote_error, run.zygote_error
    assert run.level == "none" and run.output == b"True"
    assert counts[0] == counts[1], "SIGSTOP to the agent's process group stops it"
    assert run.zygote_reap.get("signal") == signal.SIGKILL


def test_a_seat_cannot_move_onto_another_matchs_core(root: str) -> None:
    """A match reserves a core and pins its seats there (arena/referee/affinity.py), so that a seat thinking in one
    match never halves the CPU of a seat thinking in another. A seat could move itself (and the threads it starts)
    onto another match's core, and spin there for its whole turn: its rival, pinned, got half a core and could run
    out of its time. The seat may still read its cores."""
    need()
    here = sorted(os.sched_getaffinity(0))
    results = run_seat(lambda out: probe_all(out, {
        "move": lambda: os.sched_setaffinity(0, {here[-1]}),
        "widen": lambda: os.sched_setaffinity(0, set(here)),
        "read": lambda: len(os.sched_getaffinity(0)) > 0,
    }), root).results()
    assert results["move"].startswith("PermissionError") and results["widen"].startswith("PermissionError"), results
    assert results["read"] == "ok True"
