"""Every Python package in the source tree is listed in pyproject.toml (they are listed by hand)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "arena").rglob("__init__.py")}
    found |= {"arena_agents." + ".".join(init.parent.relative_to(ROOT / "agents").parts)
              for init in (ROOT / "agents").rglob("__init__.py") if init.parent != ROOT / "agents"}
    found.add("arena_agents")
    assert found - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"
