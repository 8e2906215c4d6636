"""First-party agents, importable as ``arena_agents`` and registered as a plugin (``agents/plugin.py``)."""
