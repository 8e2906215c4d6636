"""The package as built: a wheel holds every package and data file, under one version and the right metadata.

Packages are found automatically (pyproject.toml), so what can go wrong is a folder the discovery misses (the
``arena_agents`` symlink to ``agents/``), a data file without a package-data pattern, or a second version.
"""

from __future__ import annotations

import email
import importlib.metadata
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import arena

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = {"arena": ROOT / "arena", "arena_agents": ROOT / "agents"}  # package in the wheel -> its source folder


def source_files() -> set[str]:
    """Every file the wheel must hold, as wheel paths (``arena_agents/...`` for ``agents/...``)."""
    files = set()
    for package, folder in SHIPPED.items():
        for path in folder.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files.add(f"{package}/{path.relative_to(folder).as_posix()}")
    return files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """A wheel built from a copy of the sources (the build writes build/ and egg-info next to them)."""
    tree = tmp_path_factory.mktemp("tree")
    for name in ("pyproject.toml", "README.md", "arena", "agents", "arena_agents"):
        source = ROOT / name
        if source.is_symlink():
            (tree / name).symlink_to(source.readlink())
        elif source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tree / name)
    out = tmp_path_factory.mktemp("wheel")
    # The test extra installs a setuptools recent enough for pyproject.toml: no isolated build to download.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(tree)], check=True, capture_output=True)
    (built,) = out.glob("arena-*.whl")
    return zipfile.ZipFile(built)


@pytest.mark.slow
def test_the_wheel_holds_every_package_module_and_data_file(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    missing = source_files() - names
    assert not missing, f"not in the wheel (a package discovery or package-data gap in pyproject.toml): {missing}"
    assert "arena/games/lovat/deck.csv" in names and "arena_agents/plugin.py" in names
    assert not {name for name in names if name.startswith(("agents/", "tests/", "benchmarks/"))}


@pytest.mark.slow
def test_the_wheel_metadata_has_the_one_version_the_licence_and_linux(wheel: zipfile.ZipFile) -> None:
    (path,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    metadata = email.message_from_bytes(wheel.read(path))
    assert metadata["Version"] == arena.__version__
    assert metadata["License-Expression"]
    assert "Operating System :: POSIX :: Linux" in metadata.get_all("Classifier", [])


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert importlib.metadata.version("arena") == arena.__version__


def test_arena_agents_is_the_agents_folder() -> None:
    link = ROOT / "arena_agents"
    assert link.is_symlink() and link.resolve() == (ROOT / "agents").resolve()
