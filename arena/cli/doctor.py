"""``arena doctor``: which sandbox features this machine offers, and what each isolation mode uses here."""

from __future__ import annotations

import argparse
import time
from typing import Any

from arena.cli.common import add_command, print_json
from arena.sandbox import Capabilities, cgroups, lease, probe


def add_parsers(subparsers: argparse._SubParsersAction) -> None:
    """Register ``arena doctor``."""
    parser = add_command(
        subparsers,
        "doctor",
        help="show the sandbox features this machine offers and what each isolation mode uses",
        description=(
            "Probe this machine for what the agent sandbox needs (user, PID, mount and network namespaces; "
            "the Landlock ABI; cgroups and which controllers the arena may use) and say what each isolation "
            "mode will use here: trusted (in the referee's process), isolated (a forked process with "
            "rlimits) and sandboxed (the full sandbox), and which is the default for third-party agents "
            "(the strongest available). docs/security.md explains each layer.\n\n"
            "It also lists what ended arena processes left behind (seats, zygotes, seat groups and temporary "
            "folders of a run killed together with its janitor); --clean removes it. Only what belongs to a "
            "process that is gone is listed, proven by a lock it held, never what a running arena uses (every "
            "other arena command removes it on its way too).\n\n"
            "And it lists the build cache of agent programs (docs/protocol.md, \"Builds\"): each build, its size "
            "and when it was last used. The cache keeps itself under its bound by removing the least recently "
            "used builds; --clean also removes every build but the newest of each agent (never one used in the "
            "last ten minutes).\n\n"
            "Exit status: 0 (the report is the result, whatever the machine offers)."
        ),
        examples=("arena doctor", "arena doctor --json", "arena doctor --clean"),
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--clean", action="store_true",
                        help="remove what ended arena processes left behind (never what a running one uses), and "
                             "superseded builds of agent programs")
    parser.set_defaults(run=run_doctor)


def modes(capabilities: Capabilities) -> dict[str, dict[str, Any]]:
    """Per isolation mode: whether it is available here, what it uses, and what is missing."""
    abi = capabilities.landlock_abi
    landlock = []
    if abi:
        landlock.append(f"Landlock ABI {abi}: reads only the code it needs, writes only its own temporary folder")
        if abi >= 4:
            landlock.append("Landlock: no TCP bind or connect")
        if abi >= 6:
            landlock.append("Landlock: signals and abstract unix sockets scoped to the seat")
    namespaces = [name for name, present in (("user", capabilities.user_namespaces),
                                             ("PID", capabilities.pid_namespaces),
                                             ("mount", capabilities.mount_namespaces),
                                             ("network", capabilities.network_namespaces)) if present]
    uses = []
    if namespaces:
        uses.append(f"namespaces: {', '.join(namespaces)} (plus IPC and UTS)")
    if capabilities.mount_namespaces:
        uses.append("mounts: all read-only but its own temporary folder (no read moves a file's access time)")
    uses += landlock
    if capabilities.memory_limit:
        uses.append(f"cgroup {capabilities.cgroups} memory: one bound for the whole process tree")
    else:
        uses.append("memory: RLIMIT_AS per process and RLIMIT_NPROC (no cgroup memory controller usable)")
    if capabilities.freezer:
        uses.append(f"cgroup {capabilities.cgroups} freezer between turns")
    else:
        uses.append("freezing: SIGSTOP/SIGCONT to every process of the seat from its PID-namespace init")
    uses.append(f"cgroup {capabilities.cgroups} cpu quota while thinking" if capabilities.cpu_limit
                else "no CPU quota (no cgroup cpu controller usable)")
    if "pids" in cgroups.find().bases:
        uses.append(f"cgroup {capabilities.cgroups} pids: a cap on the seat's processes")
    level = capabilities.level
    return {
        "trusted": {"available": True, "level": "none",
                    "uses": ["the referee's own process: no isolation, for agents shipped with arena only"]},
        "isolated": {"available": True, "level": "none",
                     "uses": ["a forked process: its own process group, RLIMIT_AS, a private temporary folder, "
                              "killed at the end of the match"]},
        "sandboxed": {"available": level == "full", "level": level, "uses": uses if level != "none" else [],
                      "missing": capabilities.missing("full")},
    }


def third_party_default(capabilities: Capabilities) -> str:
    """The mode third-party agents get by default: the strongest this machine offers."""
    level = capabilities.level
    if level == "full":
        return "sandboxed"
    return "sandboxed (partial)" if level == "partial" else "isolated"


def leftovers(clean: bool) -> list[dict[str, Any]]:
    """What ended arena processes left behind (removed first with ``clean``): one entry per lease."""
    try:
        found = lease.sweep() if clean else lease.stale()
    except OSError:
        return []
    return [{"pid": stale.pid, "lease": stale.token, "processes": list(stale.found.processes),
             "groups": list(stale.found.groups), "frozen_groups": stale.found.frozen,
             "folders": list(stale.found.folders), "removed": clean}
            for stale in found if not stale.found.empty()]


def build_cache(clean: bool) -> dict[str, Any]:
    """The build cache of agent programs: its folder, its builds (oldest use first), what ``clean`` removed."""
    from arena.program import build, cache

    root = build.cache_root()
    removed = cache.clean(root) if clean else []
    found = cache.builds(root)
    old = {entry.path for entry in cache.superseded(found)}
    return {"folder": str(root), "bound_bytes": cache.CACHE_BYTES_MAX, "bytes": sum(entry.size for entry in found),
            "builds": [{"name": entry.name, "path": str(entry.path), "bytes": entry.size,
                        "used": time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.used)),
                        "superseded": entry.path in old} for entry in found],
            "removed": [{"name": entry.name, "path": str(entry.path), "bytes": entry.size} for entry in removed]}


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


def run_doctor(args: argparse.Namespace) -> int:
    """Print the report."""
    capabilities = probe()
    table = modes(capabilities)
    default = third_party_default(capabilities)
    left = leftovers(args.clean)
    builds = build_cache(args.clean)
    if args.json:
        print_json({"capabilities": capabilities.to_json(), "modes": table, "third_party_default": default,
                    "left_behind": left, "build_cache": builds})
        return 0
    print("Sandbox features on this machine:")
    for line in capabilities.describe():
        print(f"  {line}")
    print()
    for name, mode in table.items():
        state = "available" if mode["available"] else f"not available ({mode['level']} sandbox only)"
        print(f"isolation = \"{name}\": {state}")
        for use in mode["uses"]:
            print(f"  - {use}")
        if mode.get("missing"):
            print(f"  missing for the full sandbox: {', '.join(mode['missing'])}")
    print()
    print(f"default for third-party agents: {default}")
    if capabilities.level != "full":
        print("isolation = \"sandboxed\" refuses to start here; docs/security.md says what each missing "
              "feature would stop")
        print("arena serve refuses to start here too: a served competition runs every seat in the full sandbox "
              "(docs/serve.md)")
    print()
    if not left:
        print("left behind by ended arena processes: nothing")
    for entry in left:
        found = lease.Found(tuple(entry["processes"]), tuple(entry["groups"]), entry["frozen_groups"],
                            tuple(entry["folders"]))
        verb = "removed" if entry["removed"] else "left"
        print(f"{verb} by an ended arena process (pid {entry['pid']}, lease {entry['lease']}): {found.describe()}")
        for path in (*entry["groups"], *entry["folders"]):
            print(f"  {path}")
    if left and not args.clean:
        print("remove it with 'arena doctor --clean' (any other arena command also removes it on its way)")
    print()
    for entry in builds["removed"]:
        print(f"removed from the build cache: {entry['name']} ({_mib(entry['bytes'])}) {entry['path']}")
    print(f"build cache of agent programs: {builds['folder']}: {len(builds['builds'])} builds, "
          f"{_mib(builds['bytes'])} (kept under {builds['bound_bytes'] >> 30} GiB)")
    for entry in builds["builds"]:
        note = ", superseded" if entry["superseded"] else ""
        print(f"  {entry['name']}: {_mib(entry['bytes'])}, last used {entry['used']}{note}  {entry['path']}")
    if any(entry["superseded"] for entry in builds["builds"]) and not args.clean:
        print("remove superseded builds with 'arena doctor --clean'")
    return 0
