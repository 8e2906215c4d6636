"""examples/train_lorum.py: a tiny run writes weights the learned agent can load, the same for the same seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from arena.env.policy import MLPPolicy
from arena.games.lorum.encoding import ENCODING

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "train_lorum.py"


def train(output: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--games", "12", "--epochs", "1", "--hidden", "8",
                           "--output", str(output), *extra], capture_output=True, text=True, cwd=ROOT)


def test_a_tiny_run_writes_loadable_weights_and_is_deterministic(tmp_path):
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    for path in (first, second):
        done = train(path)
        assert done.returncode == 0, done.stderr
        assert "held-out accuracy" in done.stdout
    policies = [MLPPolicy.load(path, "lorum", 4, ENCODING.observation_size, len(ENCODING.actions))
                for path in (first, second)]
    assert [w.shape for w, _b in policies[0].layers] == [(262, 8), (8, 35)]
    for (w1, b1), (w2, b2) in zip(policies[0].layers, policies[1].layers, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


def test_bad_arguments_are_one_line_errors(tmp_path):
    done = train(tmp_path / "x.npz", "--teacher", "gredy")
    assert done.returncode == 2 and done.stderr.startswith("train_lorum: --teacher: unknown agent 'gredy'")
    assert len(done.stderr.strip().splitlines()) == 1
    done = subprocess.run([sys.executable, str(SCRIPT), "--games", "3"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "--games must be at least 10" in done.stderr


def test_without_the_rl_extra_it_is_one_line_naming_the_install(tmp_path):
    blocked = ("import runpy, sys; sys.modules['gymnasium'] = None; "  # as in an install without the rl extra
               f"sys.argv = ['train_lorum.py', '--games', '12', '--output', {str(tmp_path / 'x.npz')!r}]; "
               f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "train_lorum: arena.env needs the rl extra: pip install -e '.[rl]' in arena's folder "
        "(import of gymnasium halted; None in sys.modules)"]
