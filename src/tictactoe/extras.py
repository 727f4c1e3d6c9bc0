"""Optional dependencies: which extra brings which package, and one clear error when it is
missing.

The rules core, the readable solver, the census and the ``ttt`` command need only Typer and
Rich. Everything else is an extra (``pip install 'tictactoe[fast]'``); a feature whose extra
is missing raises `MissingExtraError`, which names the packages (as pip knows them, not as
they are imported: ``pillow``, not ``PIL``) and the extra to install, instead of a bare
`ImportError`.

>>> EXTRAS["fast"]
('numba', 'numpy')
>>> available("no-such-extra")
Traceback (most recent call last):
...
KeyError: "unknown extra 'no-such-extra': expected one of fast, tui, web, plot, dask, envs, \
openspiel"
"""

from __future__ import annotations

import importlib.util

EXTRAS: dict[str, tuple[str, ...]] = {
    "fast": ("numba", "numpy"),
    "tui": ("textual",),
    "web": ("fastapi", "uvicorn", "pydantic", "numba", "numpy"),
    "plot": ("matplotlib", "resvg_py"),
    "dask": ("dask", "distributed", "numba", "numpy"),
    "envs": ("gymnasium", "pettingzoo", "numpy", "resvg_py", "PIL"),
    "openspiel": ("pyspiel", "open_spiel", "numpy"),
}
"""Each extra and the modules it provides (import names, not distribution names)."""

PACKAGES: dict[str, str] = {
    "resvg_py": "resvg-py",
    "PIL": "pillow",
    "pyspiel": "open-spiel",
    "open_spiel": "open-spiel",
}
"""The package that pip installs for a module whose import name differs from it."""


def packages(modules: list[str] | tuple[str, ...]) -> list[str]:
    """The pip packages that provide the modules, each once, in order.

    >>> packages(["resvg_py", "PIL", "numpy", "pyspiel", "open_spiel"])
    ['resvg-py', 'pillow', 'numpy', 'open-spiel']
    """
    return list(dict.fromkeys(PACKAGES.get(module, module) for module in modules))


class MissingExtraError(ImportError):
    """A feature needs an optional dependency that is not installed. The message names the
    packages (as pip knows them) and the extra that brings them:
    ``pip install 'tictactoe[web]'``."""

    def __init__(self, feature: str, extra: str, missing: list[str]) -> None:
        self.feature, self.extra, self.missing = feature, extra, missing
        self.packages = packages(missing)
        they = "it is" if len(self.packages) == 1 else "they are"
        super().__init__(
            f"{feature} needs the package{'s' if len(self.packages) > 1 else ''} "
            f"{', '.join(self.packages)}, but {they} not installed: "
            f"pip install 'tictactoe[{extra}]'", name=missing[0])


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent that is missing, or a module blocked by None
        return False


def missing_modules(modules: list[str] | tuple[str, ...]) -> list[str]:
    """The modules of a list that are not installed here.

    >>> missing_modules(["json", "no_such_module_here"])
    ['no_such_module_here']
    """
    return [module for module in modules if not _installed(module)]


def missing(extra: str) -> list[str]:
    """The modules of an extra that are not installed here (none when it is installed)."""
    if extra not in EXTRAS:
        raise KeyError(f"unknown extra {extra!r}: expected one of {', '.join(EXTRAS)}")
    return missing_modules(EXTRAS[extra])


def available(extra: str) -> bool:
    """True when every module of the extra is installed (found without importing it).

    >>> available("fast") in (True, False)
    True
    """
    return not missing(extra)


def require(extra: str, feature: str) -> None:
    """Raise `MissingExtraError` unless the extra is installed.

    Call it before importing the optional packages, at the top of a module that needs them
    or at the start of a function.

    >>> try:
    ...     require("fast", "the compiled solver")
    ... except MissingExtraError as err:
    ...     print(err.extra)
    ... else:
    ...     print("fast")
    fast
    """
    absent = missing(extra)
    if absent:
        raise MissingExtraError(feature, extra, absent)


__all__ = ["EXTRAS", "PACKAGES", "MissingExtraError", "available", "missing", "missing_modules",
           "packages", "require"]
