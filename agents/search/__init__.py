"""The first-party ``search`` agents: determinized Monte Carlo search for Lovat and Slovak Lorum.

Split by job, per game, with the game-independent parts in one module:

* ``common``: budgets, per-move RNGs and the search loops (flat and sequential halving);
* ``lovat_cards``: the Lovat deck as small integers (the hot-path tables);
* ``lovat_sim`` / ``lorum_sim``: the bare simulators the playouts run on, with their rollout policies;
* ``lovat_beliefs`` / ``lorum_beliefs``: what the agent infers about the hidden hands;
* ``lovat`` / ``lorum``: the agents (``SearchLovatAgent``, ``SearchLorumAgent``).

Docs: ``docs/agents/search-lovat.md`` and ``docs/agents/search-lorum.md``.
"""
