"""A hostile agent program (its folder is its only readable one): plays its first legal action until its first request, then does ``attack``.

What it finds out (a read that worked, a shell that ran) it writes on its standard error and then answers
an illegal action, so the fault's message (which ends with the last line of standard error) reports it.
"""

import ctypes
import json
import os
import signal
import socket
import sys
import threading
import time

out = sys.stdout.buffer
hello = json.loads(sys.stdin.readline())
attack = hello["options"].get("attack", "")


def send(data: bytes) -> None:
    out.write(data)
    out.flush()


def report(line: str, request_id: int) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    send(json.dumps({"type": "action", "id": request_id, "action": "reported"}).encode() + b"\n")


def try_read(path: str) -> str:
    try:
        if os.path.isdir(path):
            return f"listed {len(os.listdir(path))}"
        with open(path, "rb") as handle:
            return f"read {len(handle.read(100))}"
    except OSError as error:
        return f"denied {error.errno}"


if attack == "greeting":
    send(b'{"type":"ready","extra":' + b"[" * 100000 + b"\n")
elif attack == "mute":  # a ready line it never flushes
    sys.stdout.write('{"type":"ready"}\n')
    time.sleep(30)
elif attack == "early":  # an answer to a request not yet made, right after the greeting
    send(b'{"type":"ready"}\n{"type":"action","id":1,"action":"pass"}\n{"type":"action","id":2,"action":"pass"}\n')
elif attack == "spin":  # a thread that spins from the start: between turns it must get no CPU
    def spin() -> None:
        while True:
            pass

    threading.Thread(target=spin, daemon=True).start()
    send(b'{"type":"ready"}\n')
else:
    send(b'{"type":"ready"}\n')
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "act":
        continue
    rid = message["id"]
    if attack == "flood":  # one endless line: more than the referee's line bound
        while True:
            send(b"x" * 65536)
    elif attack == "stale":  # a second answer to the same request, read as the answer to the next one
        answer = json.dumps({"type": "action", "id": rid, "action": message["legal"][0]}).encode() + b"\n"
        send(answer + answer)
        attack = ""
    elif attack == "partial":  # half a line, then nothing
        send(b'{"type":"action","id":')
        sys.stdin.readline()
    elif attack == "utf8":
        send(b'{"type":"action","id":1,"action":"\xff\xfe"}\n')
    elif attack == "huge":
        send(b'{"type":"action","id":' + b"9" * 5000 + b',"action":"pass"}\n')
    elif attack == "fork":  # as many processes as it can, each spinning, then answer as if nothing happened
        children = 0
        for _ in range(10000):
            try:
                if os.fork() == 0:
                    ctypes.CDLL(None).prctl(15, b"hostile-fork")  # PR_SET_NAME: the test looks for it
                    while True:
                        pass
                children += 1
            except OSError:
                break
        report(f"forked {children}", rid)
    elif attack == "shell":
        try:
            os.execv("/bin/sh", ["sh", "-c", "echo shell ran >&2; cat /etc/passwd >&2"])
        except OSError as error:
            report(f"exec of a shell refused: errno {error.errno}", rid)
    elif attack == "snoop":  # the folders of other seats, the referee's working folder, the user's home
        temp = os.environ.get("TMPDIR", "")
        found = {name: try_read(path) for name, path in (
            ("seats", os.path.dirname(temp)), ("home", os.path.expanduser("~root")), ("passwd", "/etc/passwd"),
            ("plugins", os.path.dirname(os.getcwd())))}
        report("snoop " + " ".join(f"{name}={result}" for name, result in found.items()), rid)
    elif attack == "chatter":  # standard error without end: bounded, and the program plays on
        written = 0
        try:
            while written < 1 << 30:
                written += os.write(2, b"x" * 65535 + b"\n")
        except OSError as error:  # standard error is full: the finding goes in the (illegal) action
            finding = f"stderr stopped at {written} bytes: errno {error.errno}"
        else:
            finding = f"stderr took {written} bytes"
        send(json.dumps({"type": "action", "id": rid, "action": finding}).encode() + b"\n")
    elif attack == "exit":
        sys.exit(3)
    elif attack == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif attack == "shutdown":  # its standard output ended, but it runs on
        socket.socket(fileno=os.dup(1)).shutdown(socket.SHUT_WR)
        time.sleep(30)
    elif attack == "orphan":  # a child keeps its standard output open; the program itself exits
        if os.fork() == 0:
            ctypes.CDLL(None).prctl(15, b"hostile-orphan")  # PR_SET_NAME: the test looks for it
            time.sleep(30)
        os._exit(0)
    elif attack == "write":  # its run folder, the folder above it, its program's own folder
        found = {}
        for name, folder in (("run", os.getcwd()), ("above", os.path.dirname(os.getcwd()))):
            try:
                with open(os.path.join(folder, "written"), "w"):
                    found[name] = "wrote"
            except OSError as error:
                found[name] = f"denied {error.errno}"
        report("write " + " ".join(f"{name}={result}" for name, result in found.items()), rid)
    elif attack == "network":  # the internet, and a server on the host's loopback (the test listens there)
        found = {}
        port = hello["seed"] % 20000 + 20000  # where the test listens
        for name, address in (("internet", ("1.1.1.1", 53)), ("loopback", ("127.0.0.1", port))):
            try:
                socket.create_connection(address, timeout=1).close()
                found[name] = "connected"
            except OSError as error:
                found[name] = f"failed {error.errno}"
        report("network " + " ".join(f"{name}={result}" for name, result in found.items()), rid)
    elif attack.startswith("odd-"):  # an action of an odd shape: a table, lists in a list, a float id
        odd = {"odd-table": {"card": "Og"}, "odd-nested": [["L1-1"], {"a": 1}], "odd-number": 1e308,
               "odd-null": None}[attack]
        send(json.dumps({"type": "action", "id": rid, "action": odd}).encode() + b"\n")
    elif attack.startswith("trailer-"):  # how node and Rust end a crash: the error, then lines after it
        sys.stderr.write({
            "trailer-node": "/p/agent.js:29\n  return request.legl[0];\n                    ^\n\nTypeError: Cannot "
                            "read properties of undefined (reading '0')\n    at decide (/p/agent.js:29:51)\n    "
                            "at Interface.<anonymous> (/p/agent.js:60:5)\n\nNode.js v20.20.2\n",
            "trailer-rust": "thread 'main' panicked at src/main.rs:10:5:\nindex out of bounds: the len is 0 but the "
                            "index is 0\nnote: run with `RUST_BACKTRACE=1` environment variable to display a "
                            "backtrace\n"}[attack])
        sys.stderr.flush()
        sys.exit(1)
    elif attack == "proc":  # the /proc entries of the referee and the zygotes (the test names them)
        readable = []
        for pid in hello["options"].get("targets", "").split():
            for name in ("cmdline", "environ", "maps", "mem", "fd/0"):
                try:
                    with open(f"/proc/{pid}/{name}", "rb") as handle:
                        readable.append(f"{pid}/{name}:{len(handle.read(64))}")
                except OSError:
                    pass
        report("proc " + (" ".join(readable) or "nothing"), rid)
    elif attack == "silent":
        sys.stdin.readline()
    else:
        send(json.dumps({"type": "action", "id": rid, "action": message["legal"][0]}).encode() + b"\n")
