"""Write hooks: every memory write tells its listeners inside the same transaction.

Also SPEC R-6. Design notes: docs/design.md.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import models

Listener = Callable[[models.Model], None]
_listeners: list[Listener] = []


def subscribe(listener: Listener) -> None:
    if listener not in _listeners:
        _listeners.append(listener)


def record_written(instance: models.Model) -> None:
    """Call inside the write's transaction, after the row is saved."""
    for listener in _listeners:
        listener(instance)
