"""A bounded, thread-safe map kept per process: what a hot path computed once and may reuse.

Design notes: docs/performance.md (How the hot paths are built).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class BoundedMemo:
    def __init__(self, size: int) -> None:
        self.size, self.lock = size, threading.Lock()
        self.entries: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        with self.lock:
            value = self.entries.get(key)
            if value is not None:
                self.entries.move_to_end(key)
            return value

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)
