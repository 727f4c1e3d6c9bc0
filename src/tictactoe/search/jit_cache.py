"""Where numba keeps the compiled kernels: a folder named by a digest of the kernel modules
and the modules they import, so that a change to any of them compiles every kernel again.

Numba checks a cached function only against its own source file. A kernel compiled with
another module's constants (the layout of a scratch array, say) would stay cached after that
module changed, and run with the old constants. Naming the folder by a digest of all of
them makes such a cache unreachable instead.

The folder is ``tictactoe/__pycache__/numba/<digest>``, or ``$NUMBA_CACHE_DIR/tictactoe-<digest>``
when that variable is set. Folders of other digests unused for `KEEP_DAYS` days are removed.

>>> len(kernel_digest())
16
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Mapping
from hashlib import sha256
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
"""The ``tictactoe`` package folder."""

KEEP_DAYS = 7

_IMPORT = re.compile(r"^\s*from tictactoe((?:\.\w+)*) import (?:\(([^)]*)\)|([\w ,]*))",
                     re.MULTILINE)
_configured = False


def _module_files(root: Path, dotted: str, names: str) -> set[Path]:
    """The files of ``from tictactoe<dotted> import names``: the module, and any of the
    names that is a module itself."""
    base = root.joinpath(*dotted.split(".")[1:]) if dotted else root
    found = {p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()}
    for item in names.split(","):
        name = item.split(" as ")[0].strip()
        if name and (base / f"{name}.py").is_file():
            found.add(base / f"{name}.py")
    return found


def kernel_digest(root: Path = PACKAGE) -> str:
    """A digest of every module under `root` that defines numba kernels (names ``njit``),
    and of the package's modules that those import."""
    files: set[Path] = set()
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "njit" in text:
            files.add(path)
            for dotted, listed, names in _IMPORT.findall(text):
                files |= _module_files(root, dotted, listed or names)
    digest = sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_folder(digest: str, environ: Mapping[str, str] = os.environ) -> Path:
    """The folder for the kernels of `digest`.

    >>> cache_folder("0123456789abcdef", {"NUMBA_CACHE_DIR": "cache"}).as_posix()
    'cache/tictactoe-0123456789abcdef'
    """
    user = environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / f"tictactoe-{digest}"
    return PACKAGE / "__pycache__" / "numba" / digest


def _prune(folder: Path) -> None:
    """Remove sibling digest folders not changed for `KEEP_DAYS` days."""
    if folder.parent.name != "numba":
        return  # a user's folder: theirs to keep
    cutoff = time.time() - KEEP_DAYS * 86_400
    try:
        for other in folder.parent.iterdir():
            if other != folder and other.is_dir() and other.stat().st_mtime < cutoff:
                shutil.rmtree(other, ignore_errors=True)
    except OSError:
        pass


def configure() -> None:
    """Point numba's cache at this version's folder. `tictactoe.search.bits`, which every
    kernel module but ``wide/kernels.py`` imports first, calls it, and so does that one.
    If the folder cannot be written, numba falls back to its own places."""
    global _configured
    if _configured:
        return
    from numba.core import config

    folder = cache_folder(kernel_digest())
    config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    _configured = True
    _prune(folder)
