"""The reference pages stay readable in ten minutes: how things work now, not the history of runs
(that goes to bench/RESULTS.md)."""

from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("page", ["search.md", "performance.md"])
def test_a_reference_page_is_at_most_400_lines(page):
    lines = (DOCS / page).read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"docs/{page} has {lines} lines: move history to bench/RESULTS.md"
