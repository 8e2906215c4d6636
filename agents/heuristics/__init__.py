"""The reference heuristics: hand-written agents of other styles than greedy's, one game each.

They are what a plugin author might write from ``docs/writing-agents.md`` in an afternoon, each
a different idea of the game, reading only its own observation (``lovat``: ``reader``, ``counting``,
``hoarder``, ``sniper``; ``lorum``: ``cautious``, ``mixed``, ``point-shy``, ``bold``).  The
search is measured against fields of them (``docs/agents/``), and an author can seat them as
opponents (``arena check-agent my-agent --game lovat --opponents sniper,counting``).
"""
