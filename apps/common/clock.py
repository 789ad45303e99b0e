"""The one clock the product reads. Tests move it instead of sleeping."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.utils import timezone

_frozen: datetime | None = None


def now() -> datetime:
    return _frozen if _frozen is not None else timezone.now()


@contextmanager
def frozen_at(moment: datetime) -> Iterator[None]:
    """Make ``now()`` answer ``moment`` inside the block (tests only)."""
    global _frozen
    previous, _frozen = _frozen, moment
    try:
        yield
    finally:
        _frozen = previous


def advance(by: timedelta) -> None:
    """Move a frozen clock forward."""
    global _frozen
    if _frozen is None:
        raise RuntimeError("advance() needs a frozen clock")
    _frozen += by
