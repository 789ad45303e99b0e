"""The one JSON serialization used for hashing and for measuring size (SPEC M-4, M-6, M-9, M-12)."""

from __future__ import annotations

import json
from typing import Any


def canonical_json(value: Any) -> str:
    """Keys sorted, no spaces, no ASCII escaping: the text every hash of a JSON value is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# The same bytes as ``canonical_json`` but for the order of keys, which a size does not depend on.
_SIZER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def json_size(value: Any) -> int:
    """The UTF-8 bytes of ``value``'s compact JSON."""
    return len(_SIZER.encode(value).encode("utf-8"))
