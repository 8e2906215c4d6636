"""Agents that are programs: any executable that speaks arena's line protocol on stdin and stdout.

The protocol itself is documented in docs/protocol.md.  This package holds the parts that are not the
referee's:

* ``arena.program.manifest``: ``arena-agent.toml``, read strictly, and ``manifest_report`` -- the one
  function that turns a folder's manifest into an agent entry for the plugin registry;
* ``arena.program.build``: the manifest's build command, run once per content hash in a confined process
  without network, its output cached;
* ``arena.program.build_log``: a build's standard error, kept within bounds, and the line that says why it
  failed;
* ``arena.program.cache``: the build cache's contents and its bound (``arena doctor`` lists and cleans it);
* ``arena.program.launch``: what a seat execs (the command, its environment, what it may read);
* ``arena.program.client``: the program's side of the protocol in Python, for a Python bot run as a program
  (and for tests that check both ends against one another).

The referee's side is ``arena.referee.program_seat`` (the seat), ``arena.referee.lines`` (its line reader)
and ``arena.referee.program_zygote`` (which execs the program inside the same sandbox a Python seat gets).
"""

PROTOCOL_VERSION = 1
"""The protocol version this arena speaks (docs/protocol.md); the greeting names it."""

MANIFEST_NAME = "arena-agent.toml"
"""The manifest file that makes a folder an agent program."""
