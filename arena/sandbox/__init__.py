"""The Linux sandbox for third-party agent code: namespaces, Landlock, seccomp, cgroups (docs/security.md).

Who calls what
--------------
* ``probe()`` (anywhere; cached): what this machine offers *the calling
  process* (its cgroup fields say whether this process can make groups, so
  call it in the referee, or before ``confine``).  ``arena doctor`` prints it.
* ``confine(policy)`` (a fresh, single-threaded process, before any untrusted
  import: a per-plugin zygote, a discovery child): for the rest of its life the
  process is in new user (uid 0 inside = the caller's uid outside), mount,
  network, IPC and UTS namespaces, keeps only CAP_SYS_ADMIN and CAP_SETPCAP
  there (so its loopback stays down), has ``no_new_privs``, sees an empty
  /tmp, /var/tmp, /run and /dev/shm (its read paths and ``temp_root`` bound
  back at the same paths: no unix socket of another program in sight), and
  under Landlock reads only ``policy.read_paths`` (see ``default_read_paths``)
  plus /dev/null, /dev/zero, /dev/random, /dev/urandom, the three cpu lists
  ``os.cpu_count`` reads (``confinement.DEVICES``) and its own /proc entry,
  writes only beneath its ``temp_root`` (made, and removed after the process
  by a janitor, when not given; with namespaces a size-bounded tmpfs is
  mounted over it, so nothing a seat writes reaches the host's disk; every
  other mount it sees is made read-only there, so no read moves a file's
  access time: ``mounts.py``), cannot
  bind or connect TCP, and cannot signal or reach abstract unix sockets
  outside its sandbox; a seccomp filter (``seccomp.py``) refuses what
  Landlock leaves open (file metadata, keyrings, file locks, the page cache
  and free space as stores, netlink sockets).  Fds it already holds (the
  referee's socket) still work: Landlock checks opening, not using.
* ``arena.sandbox.process`` (discovery children, zygotes, seats): the hygiene
  of a freshly forked child and the subreaper that kills what plugin code
  left running.
* ``spawn_seat(run, policy, keep_fds, await_placement=True, acknowledge=W, placement=S)``
  (the confined zygote): one seat of one match, as described in
  ``arena.sandbox.seat``; the zygote hands the ``SeatBox`` (plain JSON) to the
  referee.  ``W`` is the write end of a pipe the referee made: the init
  acknowledges each freeze and thaw there when there is no cgroup freezer
  (a freeze is waited for; a thaw's answer is read by the next freeze).
  ``S`` is the seat's socket, on which the init reads ``place``'s message.
* ``place(box, policy, parent=ZYGOTE_PID, temp_root=..., acknowledgements=R, channel=C)``
  (the referee, unconfined): checks the box, makes the seat's cgroups, puts
  the seat's init into them and only then lets the agent process start.  With
  cgroup v1 and ``C`` (the referee's end of ``S``) the init moves itself,
  through the groups' files sent on ``C``; ``confirm(box)`` checks that it
  did, before the seat's first freeze.
* ``freeze(box)`` / ``thaw(box)`` (the referee, between turns); ``reap(box)``
  (both, the referee first: it kills and thaws the tree, gets its peak memory
  and removes the groups; then the zygote gets the exit status; both remove
  the temporary folder).

Design decisions
----------------
Cgroups are made by the referee.  A confined zygote cannot write
/sys/fs/cgroup (Landlock), and must not: it runs plugin code.  So the seat's
init waits (``await_placement``) until ``place`` has put it in its groups and
sends it ``SIGUSR1``; the agent process is forked only then, so every process
of the seat is born inside the groups.  Groups go beneath the referee's own
group of each hierarchy (cgroup v1 memory, freezer, cpu and pids, or v2), so a
bound on the arena still holds.  ``place`` trusts nothing in the box: the pid
must be a child of the zygote and the init of its own PID namespace, the
folder directly inside the zygote's ``temp_root``; later calls act only on what
``place`` verified (a pidfd, the groups it made), never on a pid or path from
the box.

The PID-namespace init is our code.  It blocks SIGCHLD, SIGUSR1 and two
real-time signals and takes them with ``sigwaitinfo``: SIGCHLD -> wait for
every ended child (orphans and double-forked grandchildren become its children
in the namespace); when the agent process ends, ``kill(-1, SIGKILL)`` and exit
with its status (128 + n for a signal).  A freeze or thaw request (only from
outside the namespace) -> ``kill(-1, SIGSTOP | SIGCONT)``, then it renames
itself (``arena-frozen`` / ``arena-thawed``), which the referee reads in
/proc to know the request is done.  The kernel kills every process of the
namespace when the init dies, so reaping the init reaps the seat, and the init
dies with the zygote (``PR_SET_PDEATHSIG``).

Unprivileged fallbacks (no usable cgroup controller: a user without root and
without a delegated v2 subtree).  Memory: ``RLIMIT_AS`` per process (the zygote's size
at fork plus ``memory_mb``) and ``RLIMIT_NPROC = max_processes`` -- counted
per user id of the zygote's user namespace, so it bounds the processes of all
seats of one zygote together; a tree may therefore hold up to
``max_processes * memory_mb``.  Freezing: SIGSTOP/SIGCONT to every process of
the namespace by its init, as above (a stopped process cannot fork, and
``kill(-1)`` restarts a racing fork).  No CPU quota.  ``Capabilities.level``
is then "partial", and ``confine(require="full")`` refuses.

Cost per seat (benchmarks/sandbox.py measures it; docs/security.md has the
figures): one ``clone`` into new PID, IPC and UTS namespaces (a network
namespace per seat would add about 1 ms, so one is made only where Landlock
cannot scope abstract unix sockets), one more fork for the agent process, one
Landlock domain, and with cgroups four group folders made, entered and
removed -- with cgroup v1 entering waits for an RCU grace period, shared by
moves made close together.  The target is 15 ms for start-up plus teardown on
2 cores.
"""

from arena.sandbox.capabilities import Capabilities, SandboxError, probe
from arena.sandbox.confinement import confine
from arena.sandbox.policy import MAX_OPEN_FILES, Policy, default_read_paths
from arena.sandbox.seat import SeatBox, confirm, freeze, kill, place, reap, spawn_seat, thaw

__all__ = ["MAX_OPEN_FILES", "Capabilities", "Policy", "SandboxError", "SeatBox", "confine", "confirm",
           "default_read_paths", "freeze", "kill", "place", "probe", "reap", "spawn_seat", "thaw"]
