"""The mutation areas name code that exists: a written-out mutant or an equivalent line the code moved away
from would otherwise only show up as "stale" at the end of a 45-minute run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mutation.areas import AREAS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(AREAS))
def test_every_named_mutant_and_equivalent_line_is_in_the_code(name):
    area = AREAS[name]
    for module, functions in area.functions.items():
        source = (ROOT / module).read_text()
        assert all(f"def {function}(" in source for function in functions), (module, functions)
    for module, text, _, what in area.named:
        assert (ROOT / module).read_text().count(text) == 1, (module, what)
    for module, _, line, _ in area.equivalent:
        lines = {source.strip() for source in (ROOT / module).read_text().splitlines()}
        assert line in lines, (module, line)
