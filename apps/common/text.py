"""Text that JSON can carry but no database stores: the one rule, for every caller that takes text.

Design notes: docs/design.md.
"""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_text_reason(text: str) -> str | None:
    """Why ``text`` cannot be stored (a phrase to follow the field's name), or ``None`` when it can."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "must not contain NUL characters"
    return "is not valid Unicode text (a lone surrogate)"


# Unicode direction controls (embeddings, overrides, isolates, marks): inside a sentence of ours, the one in
# someone else's text would turn the rest of the sentence around.
_DIRECTION_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def without_direction_controls(text: str) -> str:
    """``text`` without Unicode direction controls, for showing it inside other text."""
    return _DIRECTION_CONTROLS.sub("", text)


def shown_name(name: str | None) -> str:
    """A name someone else chose, as plain text inside our sentences: no direction controls, no edge spaces."""
    return without_direction_controls(name or "").strip()
