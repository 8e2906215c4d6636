"""The served competition's fixtures live in serve_helpers (importable by the tests as a module)."""

from serve_helpers import serve_app

__all__ = ["serve_app"]
