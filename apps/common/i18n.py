"""Words a page repeats on every row, translated once per catalog rather than once per row (SPEC W-6).

A long page shows the same category names, choice labels and badges hundreds
of times; each lazy translation looks its catalog up again. ``once_per_catalog``
keeps one result per active catalog. The key is the catalog object, not the
language code, so a catalog loaded anew (translations compiled while the
process runs, as the tests do) never meets a result made from the old one.
"""

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
