"""The kernels' cache folder is named by a digest of the kernel modules and what they import:
a change to any of them reaches every cached kernel."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tictactoe.search import jit_cache


def _package(root: Path) -> Path:
    """A small package: two kernel modules, a module of constants one imports, and another."""
    (root / "search").mkdir(parents=True)
    (root / "search" / "__init__.py").write_text("")
    (root / "search" / "layout.py").write_text("SLOT = 1\n")
    (root / "search" / "kernels.py").write_text(
        "from numba import njit\nfrom tictactoe.search.layout import SLOT\n\n"
        "@njit(cache=True)\ndef f(a):\n    return a[SLOT]\n")
    (root / "search" / "other.py").write_text(
        "from numba import njit\nfrom tictactoe.search import (\n    kernels,\n)\n")
    (root / "cli.py").write_text("print('hello')\n")
    return root


def test_the_digest_follows_kernels_and_their_imports_only(tmp_path: Path) -> None:
    root = _package(tmp_path / "tictactoe")
    before = jit_cache.kernel_digest(root)
    assert jit_cache.kernel_digest(root) == before
    (root / "cli.py").write_text("print('bye')\n")  # no kernel reads it
    assert jit_cache.kernel_digest(root) == before
    (root / "search" / "layout.py").write_text("SLOT = 2\n")  # a constant a kernel reads
    changed = jit_cache.kernel_digest(root)
    assert changed != before
    (root / "search" / "kernels.py").write_text(
        (root / "search" / "kernels.py").read_text().replace("a[SLOT]", "a[SLOT] + 1"))
    assert jit_cache.kernel_digest(root) not in (before, changed)


def test_the_folder_is_the_users_when_numba_cache_dir_is_set() -> None:
    assert jit_cache.cache_folder("abc", {"NUMBA_CACHE_DIR": "/x"}) == Path("/x/tictactoe-abc")
    assert jit_cache.cache_folder("abc", {}) == jit_cache.PACKAGE / "__pycache__" / "numba" / "abc"


def test_old_digest_folders_are_pruned_and_recent_ones_kept(tmp_path: Path) -> None:
    numba_dir = tmp_path / "numba"
    current, recent, old = (numba_dir / name for name in ("cur", "recent", "old"))
    for folder in (current, recent, old):
        folder.mkdir(parents=True)
        (folder / "f.nbi").write_text("x")
    stale = time.time() - (jit_cache.KEEP_DAYS + 1) * 86_400
    os.utime(old, (stale, stale))
    jit_cache._prune(current)
    assert current.is_dir() and recent.is_dir() and not old.exists()
    user = tmp_path / "user" / "tictactoe-cur"
    user.mkdir(parents=True)
    (tmp_path / "user" / "tictactoe-old").mkdir()
    os.utime(tmp_path / "user" / "tictactoe-old", (stale, stale))
    jit_cache._prune(user)  # a user's folder is left alone
    assert (tmp_path / "user" / "tictactoe-old").is_dir()


def test_kernels_are_cached_in_this_versions_folder(tmp_path: Path) -> None:
    """A kernel run in a fresh process writes its cache under the digest's folder."""
    code = ("import numpy as np\n"
            "from numba.core import config\n"
            "from tictactoe.search.bits import popcount\n"
            "from tictactoe.search import jit_cache\n"
            "from numba import njit\n"
            "print(config.CACHE_DIR)\n"
            "print(jit_cache.cache_folder(jit_cache.kernel_digest()))\n"
            "print(int(popcount(np.uint64(7))))\n")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True, timeout=300).stdout.split()
    assert out[0] == out[1] == str(tmp_path / f"tictactoe-{jit_cache.kernel_digest()}")
    assert out[2] == "3"
    cached = list(Path(out[0]).rglob("*.nbi"))
    assert cached, "no kernel was cached in the digest's folder"
    assert not [p for p in tmp_path.rglob("*.nbi") if not p.is_relative_to(out[0])]
