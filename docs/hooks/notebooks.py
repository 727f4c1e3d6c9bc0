"""MkDocs hooks: every notebook in the docs (``*.ipynb``) becomes a page, run at build time;
and the doctest examples in docstrings show as code.

Each code cell runs in one namespace, as in a Jupyter kernel; what it prints is shown, and the
value of its last expression is shown as Jupyter shows it: by ``_repr_svg_`` as an inline
picture when the value has one, else by ``repr``. An exception fails the build. The notebook
file itself is kept, so the page links to it for download.

Standard library only: a notebook is JSON (nbformat 4), so no Jupyter packages are needed
to render one.
"""

from __future__ import annotations

import ast
import contextlib
import html
import io
import json
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files


def _show(value: object) -> str:
    """Markdown for a cell's value, as Jupyter would display it."""
    svg = getattr(value, "_repr_svg_", None)
    if callable(svg):
        return f'<div class="notebook-output">\n{svg()}\n</div>\n'
    if isinstance(value, str) and value.lstrip().startswith("<svg"):
        return f'<div class="notebook-output">\n{value}\n</div>\n'
    return f"```text\n{value!r}\n```\n"


def run_cell(source: str, namespace: dict[str, Any]) -> str:
    """Run one code cell; the markdown of its printed text and its value."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "<cell>", "exec"), namespace)
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace) \
            if last is not None else None
    out = ""
    if printed.getvalue():
        out += f"```text\n{printed.getvalue().rstrip()}\n```\n"
    if value is not None:
        out += _show(value)
    return out


def notebook_markdown(path: Path) -> str:
    """The page of a notebook: its markdown cells, its code and the outputs of running it."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    if notebook.get("nbformat") != 4:
        raise ValueError(f"{path}: expected a notebook in nbformat 4")
    namespace: dict[str, Any] = {"__name__": "__notebook__"}
    parts = []
    for number, cell in enumerate(notebook["cells"], 1):
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            parts.append(source)
        elif cell["cell_type"] == "code":
            try:
                output = run_cell(source, namespace)
            except Exception as err:
                raise RuntimeError(f"{path}, cell {number}: {err!r}") from err
            parts.append(f"```python\n{source}\n```\n{output}")
    parts.append(f'<p class="notebook-source">The notebook: '
                 f'<a href="../{html.escape(path.name)}">{html.escape(path.name)}</a></p>')
    return "\n\n".join(parts) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add a page ``NAME.md`` for each ``NAME.ipynb`` (the notebook stays, for download)."""
    for file in list(files):
        if file.src_uri.endswith(".ipynb") and file.abs_src_path:
            content = notebook_markdown(Path(file.abs_src_path))
            files.append(File.generated(config, file.src_uri.removesuffix(".ipynb") + ".md",
                                        content=content))
    return files


class _DoctestBlocks(Preprocessor):
    """Fence the doctest examples of docstrings (``>>>`` lines and their output, up to a
    blank line) as Python console code, so that their brackets are not read as links."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        fenced = False
        block: list[str] = []
        for line in [*lines, ""]:  # a blank line at the end closes the last block
            stripped = line.strip()
            if block:
                if stripped:
                    block.append(line)
                    continue
                indent = len(block[0]) - len(block[0].lstrip())
                out.extend(["```pycon", *(b[indent:] for b in block), "```", ""])
                block = []
            if stripped.startswith("```"):
                fenced = not fenced
            if not fenced and stripped.startswith(">>>"):
                block = [line]
                continue
            out.append(line)
        return out[:-1]  # without the blank line added at the end


class DoctestExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_DoctestBlocks(md), "doctest_blocks", 29)


@event_priority(100)  # before mkdocstrings reads the extensions
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.markdown_extensions.append(DoctestExtension())  # type: ignore[arg-type]
    return config
