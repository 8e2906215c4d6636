"""Game engines.  Each game lives in its own subpackage and registers as a plugin."""
