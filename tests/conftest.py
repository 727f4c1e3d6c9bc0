"""Suite-wide test configuration."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the browser tests last.

    Playwright's sync API keeps an event loop running for the rest of the session once it
    starts, and the Textual tests need to run their own loop, so they must come first.
    """
    items.sort(key=lambda item: "browser" in item.nodeid.split("::")[0].split("/"))
