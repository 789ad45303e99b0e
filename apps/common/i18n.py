"""Words a page repeats on every row, translated once per catalog rather than once per row (SPEC W-6).

Kept per catalog object, not per language code, so a catalog loaded anew never meets an old result."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

from django.utils.translation import trans_real

T = TypeVar("T")


def once_per_catalog(compute: Callable[[], T]) -> Callable[[], T]:
    results: dict[object, T] = {}

    @functools.wraps(compute)
    def cached() -> T:
        catalog = trans_real.catalog()
        if catalog not in results:
            results[catalog] = compute()  # two threads may both compute it: the same value
        return results[catalog]

    return cached
